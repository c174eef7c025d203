# gnuplot script written by `grader tune`: lab 07 utilization heat maps.
# Run in this folder: gnuplot heatmaps.gp   (or: grader tune --plot-only THIS_FOLDER)
set terminal pngcairo noenhanced size 1200,560 font "DejaVu Sans,20"
set datafile missing "NaN"
set palette defined (0 "#1f2f9f", 0.25 "#2f8fdf", 0.5 "#5fcf5f", 0.75 "#ffcf2f", 1 "#cf1f1f")
set cbrange [0:100]
set cblabel "FMA rate / measured peak (%)"
set xlabel "outputs per thread in x"
set ylabel "outputs per thread in y"
set xtics ("1" 0, "2" 1, "4" 2, "8" 3, "12" 4, "16" 5)
set ytics ("1" 0, "2" 1, "3" 2, "4" 3, "6" 4, "8" 5)
set xrange [-0.5:5.5]
set yrange [-0.5:5.5]
set tics nomirror out
unset key

set output "heatmap_k02.png"
set multiplot layout 1,2 title "2x2 convolution on " . 'NVIDIA H200' . " (32x4 threads, global->register, unrolled rows)" font ",20"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#bbbbbb" fillstyle solid noborder
set title "mask via __shfl_sync"
plot "heatmap_k02.dat" index 0 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 0 using 1:2:6 with labels font ",15"
set title "mask in constant memory"
plot "heatmap_k02.dat" index 1 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 1 using 1:2:6 with labels font ",15"
unset multiplot
unset object 1

set output "heatmap_k03.png"
set multiplot layout 1,2 title "3x3 convolution on " . 'NVIDIA H200' . " (32x4 threads, global->register, unrolled rows)" font ",20"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#bbbbbb" fillstyle solid noborder
set title "mask via __shfl_sync"
plot "heatmap_k03.dat" index 0 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 0 using 1:2:6 with labels font ",15"
set title "mask in constant memory"
plot "heatmap_k03.dat" index 1 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 1 using 1:2:6 with labels font ",15"
unset multiplot
unset object 1

set output "heatmap_k04.png"
set multiplot layout 1,2 title "4x4 convolution on " . 'NVIDIA H200' . " (32x4 threads, global->register, unrolled rows)" font ",20"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#bbbbbb" fillstyle solid noborder
set title "mask via __shfl_sync"
plot "heatmap_k04.dat" index 0 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 0 using 1:2:6 with labels font ",15"
set title "mask in constant memory"
plot "heatmap_k04.dat" index 1 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 1 using 1:2:6 with labels font ",15"
unset multiplot
unset object 1

set output "heatmap_k05.png"
set multiplot layout 1,2 title "5x5 convolution on " . 'NVIDIA H200' . " (32x4 threads, global->register, unrolled rows)" font ",20"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#bbbbbb" fillstyle solid noborder
set title "mask via __shfl_sync"
plot "heatmap_k05.dat" index 0 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 0 using 1:2:6 with labels font ",15"
set title "mask in constant memory"
plot "heatmap_k05.dat" index 1 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 1 using 1:2:6 with labels font ",15"
unset multiplot
unset object 1

set output "heatmap_k06.png"
set multiplot layout 1,2 title "6x6 convolution on " . 'NVIDIA H200' . " (32x4 threads, global->register, unrolled rows)" font ",20"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#bbbbbb" fillstyle solid noborder
set title "mask via __shfl_sync"
plot "heatmap_k06.dat" index 0 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 0 using 1:2:6 with labels font ",15"
set title "mask in constant memory"
plot "heatmap_k06.dat" index 1 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 1 using 1:2:6 with labels font ",15"
unset multiplot
unset object 1

set output "heatmap_k07.png"
set multiplot layout 1,2 title "7x7 convolution on " . 'NVIDIA H200' . " (32x4 threads, global->register, unrolled rows)" font ",20"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#bbbbbb" fillstyle solid noborder
set title "mask via __shfl_sync"
plot "heatmap_k07.dat" index 0 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 0 using 1:2:6 with labels font ",15"
set title "mask in constant memory"
plot "heatmap_k07.dat" index 1 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 1 using 1:2:6 with labels font ",15"
unset multiplot
unset object 1

set output "heatmap_k09.png"
set multiplot layout 1,2 title "9x9 convolution on " . 'NVIDIA H200' . " (32x4 threads, global->register, rolled rows)" font ",20"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#bbbbbb" fillstyle solid noborder
set title "mask via __shfl_sync"
plot "heatmap_k09.dat" index 0 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 0 using 1:2:6 with labels font ",15"
set title "mask in constant memory"
plot "heatmap_k09.dat" index 1 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 1 using 1:2:6 with labels font ",15"
unset multiplot
unset object 1

set output "heatmap_k11.png"
set multiplot layout 1,2 title "11x11 convolution on " . 'NVIDIA H200' . " (32x4 threads, global->register, rolled rows)" font ",20"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#bbbbbb" fillstyle solid noborder
set title "mask via __shfl_sync"
plot "heatmap_k11.dat" index 0 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 0 using 1:2:6 with labels font ",15"
set title "mask in constant memory"
plot "heatmap_k11.dat" index 1 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 1 using 1:2:6 with labels font ",15"
unset multiplot
unset object 1

set output "heatmap_k13.png"
set multiplot layout 1,2 title "13x13 convolution on " . 'NVIDIA H200' . " (32x4 threads, global->register, rolled rows)" font ",20"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#bbbbbb" fillstyle solid noborder
set title "mask via __shfl_sync"
plot "heatmap_k13.dat" index 0 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 0 using 1:2:6 with labels font ",15"
set title "mask in constant memory"
plot "heatmap_k13.dat" index 1 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 1 using 1:2:6 with labels font ",15"
unset multiplot
unset object 1

set output "heatmap_k15.png"
set multiplot layout 1,2 title "15x15 convolution on " . 'NVIDIA H200' . " (32x4 threads, global->register, rolled rows)" font ",20"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#bbbbbb" fillstyle solid noborder
set title "mask via __shfl_sync"
plot "heatmap_k15.dat" index 0 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 0 using 1:2:6 with labels font ",15"
set title "mask in constant memory"
plot "heatmap_k15.dat" index 1 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 1 using 1:2:6 with labels font ",15"
unset multiplot
unset object 1

set output "heatmap_k17.png"
set multiplot layout 1,2 title "17x17 convolution on " . 'NVIDIA H200' . " (32x4 threads, global->register, rolled rows)" font ",20"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#bbbbbb" fillstyle solid noborder
set title "mask via __shfl_sync"
plot "heatmap_k17.dat" index 0 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 0 using 1:2:6 with labels font ",15"
set title "mask in constant memory"
plot "heatmap_k17.dat" index 1 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 1 using 1:2:6 with labels font ",15"
unset multiplot
unset object 1
