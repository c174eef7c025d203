# gnuplot script written by `grader bench`; run in this folder: gnuplot bench.gp
# (or: grader bench --plot-only THIS_FOLDER)
set terminal pngcairo noenhanced size 1100,640 font "DejaVu Sans,22"
set datafile missing "NaN"
set datafile separator "\t"
set tics nomirror out
set grid ytics lc rgb "#dddddd"

set logscale xy
set xlabel "flop per byte of input read + output written (K = 2..17)"
set ylabel "TFLOP/s"
set key bottom right
set xrange [0.5:80]
set yrange [0.003:91.50200247887754]
roof(x) = (x * 4.201657000740529 < 61.00133498591836 ? x * 4.201657000740529 : 61.00133498591836)
set output "roofline_labs01-02.png"
set title "Labs 01-02, untiled, 9216x9216\n" . 'NVIDIA H200' . ": copy 4202 GB/s, FMA 61.0 TFLOP/s"
plot roof(x) with lines lw 4 lc rgb "#444444" title "roofline", \
  "roofline.dat" index 10 using 1:2 with linespoints pt 5 ps 2 lw 3 title 'lab01 no_restrict', \
  "roofline.dat" index 11 using 1:2 with linespoints pt 7 ps 2 lw 3 title 'lab01 mask_restrict', \
  "roofline.dat" index 12 using 1:2 with linespoints pt 9 ps 2 lw 3 title 'lab01 input_restrict', \
  "roofline.dat" index 13 using 1:2 with linespoints pt 11 ps 2 lw 3 title 'lab01 both_restrict', \
  "roofline.dat" index 14 using 1:2 with linespoints pt 5 ps 2 lw 3 title 'lab02 constant_mask'
set output "roofline_labs03-05.png"
set title "Labs 03-05, shared-memory tiles, 9216x9216\n" . 'NVIDIA H200' . ": copy 4202 GB/s, FMA 61.0 TFLOP/s"
plot roof(x) with lines lw 4 lc rgb "#444444" title "roofline", \
  "roofline.dat" index 15 using 1:2 with linespoints pt 5 ps 2 lw 3 title 'lab03 tiled_output', \
  "roofline.dat" index 16 using 1:2 with linespoints pt 7 ps 2 lw 3 title 'lab04 tiled_input', \
  "roofline.dat" index 17 using 1:2 with linespoints pt 9 ps 2 lw 3 title 'lab05 cached_halo'
set output "roofline_lab07.png"
set title "Lab 07, register tiling, 9216x9216\n" . 'NVIDIA H200' . ": copy 4202 GB/s, FMA 61.0 TFLOP/s"
plot roof(x) with lines lw 4 lc rgb "#444444" title "roofline", \
  "roofline.dat" index 0 using 1:2 with linespoints pt 5 ps 2 lw 3 title 'lab07 one_output', \
  "roofline.dat" index 1 using 1:2 with linespoints pt 7 ps 2 lw 3 title 'lab07 outputs_xy', \
  "roofline.dat" index 2 using 1:2 with linespoints pt 9 ps 2 lw 3 title 'lab07 shfl_filter', \
  "roofline.dat" index 3 using 1:2 with linespoints pt 11 ps 2 lw 3 title 'lab07 constant_filter', \
  "roofline.dat" index 4 using 1:2 with linespoints pt 5 ps 2 lw 3 title 'lab07 shared_input', \
  "roofline.dat" index 5 using 1:2 with linespoints pt 7 ps 2 lw 3 title 'lab07 register_tiled'
set output "roofline_peers.png"
set title "The libraries: NPP, cuDNN, cuFFT, CuPy, 9216x9216\n" . 'NVIDIA H200' . ": copy 4202 GB/s, FMA 61.0 TFLOP/s"
plot roof(x) with lines lw 4 lc rgb "#444444" title "roofline", \
  "roofline.dat" index 6 using 1:2 with linespoints pt 5 ps 2 lw 3 title 'NPP nppiFilterBorder_32f_C1R', \
  "roofline.dat" index 7 using 1:2 with linespoints pt 7 ps 2 lw 3 title 'cuDNN', \
  "roofline.dat" index 8 using 1:2 with linespoints pt 9 ps 2 lw 3 title 'cuFFT', \
  "roofline.dat" index 9 using 1:2 with linespoints pt 11 ps 2 lw 3 title 'CuPy cupyx.scipy.ndimage.correlate', \
  "roofline.dat" index 18 using 1:2 with linespoints pt 5 ps 2 lw 3 title 'lab08 banded_tf32x3', \
  "roofline.dat" index 19 using 1:2 with linespoints pt 7 ps 2 lw 3 title 'lab08 banded_tf32_bf16'
unset logscale
unset xrange
unset yrange
unset key
unset xlabel
unset ylabel

set output "bars_k02.png"
set terminal pngcairo noenhanced size 1600,900 font "DejaVu Sans,22"
set title "2x2 mask, " . 'NVIDIA H200' . ": % of roofline"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by 45 right font ",16"
set ytics 20
set xlabel ""
set ylabel "% of roofline"
set yrange [0:*]
set key outside top center horizontal
plot for [c=2:4] "bars_k02.dat" using c:xtic(1) title columnheader(c)
unset style data
set xtics norotate font ""
unset key
unset yrange
unset xlabel
unset ylabel
set ytics autofreq
set terminal pngcairo noenhanced size 1100,640 font "DejaVu Sans,22"

set output "bars_k03.png"
set terminal pngcairo noenhanced size 1600,900 font "DejaVu Sans,22"
set title "3x3 mask, " . 'NVIDIA H200' . ": % of roofline"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by 45 right font ",16"
set ytics 20
set xlabel ""
set ylabel "% of roofline"
set yrange [0:*]
set key outside top center horizontal
plot for [c=2:4] "bars_k03.dat" using c:xtic(1) title columnheader(c)
unset style data
set xtics norotate font ""
unset key
unset yrange
unset xlabel
unset ylabel
set ytics autofreq
set terminal pngcairo noenhanced size 1100,640 font "DejaVu Sans,22"

set output "bars_k04.png"
set terminal pngcairo noenhanced size 1600,900 font "DejaVu Sans,22"
set title "4x4 mask, " . 'NVIDIA H200' . ": % of roofline"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by 45 right font ",16"
set ytics 20
set xlabel ""
set ylabel "% of roofline"
set yrange [0:*]
set key outside top center horizontal
plot for [c=2:4] "bars_k04.dat" using c:xtic(1) title columnheader(c)
unset style data
set xtics norotate font ""
unset key
unset yrange
unset xlabel
unset ylabel
set ytics autofreq
set terminal pngcairo noenhanced size 1100,640 font "DejaVu Sans,22"

set output "bars_k05.png"
set terminal pngcairo noenhanced size 1600,900 font "DejaVu Sans,22"
set title "5x5 mask, " . 'NVIDIA H200' . ": % of roofline"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by 45 right font ",16"
set ytics 20
set xlabel ""
set ylabel "% of roofline"
set yrange [0:*]
set key outside top center horizontal
plot for [c=2:4] "bars_k05.dat" using c:xtic(1) title columnheader(c)
unset style data
set xtics norotate font ""
unset key
unset yrange
unset xlabel
unset ylabel
set ytics autofreq
set terminal pngcairo noenhanced size 1100,640 font "DejaVu Sans,22"

set output "bars_k06.png"
set terminal pngcairo noenhanced size 1600,900 font "DejaVu Sans,22"
set title "6x6 mask, " . 'NVIDIA H200' . ": % of roofline"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by 45 right font ",16"
set ytics 20
set xlabel ""
set ylabel "% of roofline"
set yrange [0:*]
set key outside top center horizontal
plot for [c=2:4] "bars_k06.dat" using c:xtic(1) title columnheader(c)
unset style data
set xtics norotate font ""
unset key
unset yrange
unset xlabel
unset ylabel
set ytics autofreq
set terminal pngcairo noenhanced size 1100,640 font "DejaVu Sans,22"

set output "bars_k07.png"
set terminal pngcairo noenhanced size 1600,900 font "DejaVu Sans,22"
set title "7x7 mask, " . 'NVIDIA H200' . ": % of roofline"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by 45 right font ",16"
set ytics 20
set xlabel ""
set ylabel "% of roofline"
set yrange [0:*]
set key outside top center horizontal
plot for [c=2:4] "bars_k07.dat" using c:xtic(1) title columnheader(c)
unset style data
set xtics norotate font ""
unset key
unset yrange
unset xlabel
unset ylabel
set ytics autofreq
set terminal pngcairo noenhanced size 1100,640 font "DejaVu Sans,22"

set output "bars_k09.png"
set terminal pngcairo noenhanced size 1600,900 font "DejaVu Sans,22"
set title "9x9 mask, " . 'NVIDIA H200' . ": % of roofline"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by 45 right font ",16"
set ytics 20
set xlabel ""
set ylabel "% of roofline"
set yrange [0:*]
set key outside top center horizontal
plot for [c=2:4] "bars_k09.dat" using c:xtic(1) title columnheader(c)
unset style data
set xtics norotate font ""
unset key
unset yrange
unset xlabel
unset ylabel
set ytics autofreq
set terminal pngcairo noenhanced size 1100,640 font "DejaVu Sans,22"

set output "bars_k11.png"
set terminal pngcairo noenhanced size 1600,900 font "DejaVu Sans,22"
set title "11x11 mask, " . 'NVIDIA H200' . ": % of roofline"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by 45 right font ",16"
set ytics 20
set xlabel ""
set ylabel "% of roofline"
set yrange [0:*]
set key outside top center horizontal
plot for [c=2:4] "bars_k11.dat" using c:xtic(1) title columnheader(c)
unset style data
set xtics norotate font ""
unset key
unset yrange
unset xlabel
unset ylabel
set ytics autofreq
set terminal pngcairo noenhanced size 1100,640 font "DejaVu Sans,22"

set output "bars_k13.png"
set terminal pngcairo noenhanced size 1600,900 font "DejaVu Sans,22"
set title "13x13 mask, " . 'NVIDIA H200' . ": % of roofline"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by 45 right font ",16"
set ytics 20
set xlabel ""
set ylabel "% of roofline"
set yrange [0:*]
set key outside top center horizontal
plot for [c=2:4] "bars_k13.dat" using c:xtic(1) title columnheader(c)
unset style data
set xtics norotate font ""
unset key
unset yrange
unset xlabel
unset ylabel
set ytics autofreq
set terminal pngcairo noenhanced size 1100,640 font "DejaVu Sans,22"

set output "bars_k15.png"
set terminal pngcairo noenhanced size 1600,900 font "DejaVu Sans,22"
set title "15x15 mask, " . 'NVIDIA H200' . ": % of roofline"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by 45 right font ",16"
set ytics 20
set xlabel ""
set ylabel "% of roofline"
set yrange [0:*]
set key outside top center horizontal
plot for [c=2:4] "bars_k15.dat" using c:xtic(1) title columnheader(c)
unset style data
set xtics norotate font ""
unset key
unset yrange
unset xlabel
unset ylabel
set ytics autofreq
set terminal pngcairo noenhanced size 1100,640 font "DejaVu Sans,22"

set output "bars_k17.png"
set terminal pngcairo noenhanced size 1600,900 font "DejaVu Sans,22"
set title "17x17 mask, " . 'NVIDIA H200' . ": % of roofline"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by 45 right font ",16"
set ytics 20
set xlabel ""
set ylabel "% of roofline"
set yrange [0:*]
set key outside top center horizontal
plot for [c=2:4] "bars_k17.dat" using c:xtic(1) title columnheader(c)
unset style data
set xtics norotate font ""
unset key
unset yrange
unset xlabel
unset ylabel
set ytics autofreq
set terminal pngcairo noenhanced size 1100,640 font "DejaVu Sans,22"

set output "sweep.png"
set terminal pngcairo noenhanced size 1600,800 font "DejaVu Sans,28"
set multiplot title "Lab 01 (both_restrict), " . 'NVIDIA H200' . ", 8192x8192" font ",30"
set yrange [0:*]
set xrange [-0.5:13.5]
set xtics 1
set label 1 "block shape (threads in x by y)" at screen 0.01,0.025 left
set key horizontal at screen 0.985,0 right bottom samplen 2
set lmargin at screen 0.07
set rmargin at screen 0.485
set tmargin at screen 0.79
set bmargin at screen 0.595
set xtics norotate format ""
set title "time (ms)"
set ytics 1
plot "sweep.dat" index 0 using 1:3 with linespoints pt 7 ps 1.5 lw 3 title "K=3", "sweep.dat" index 1 using 1:3 with linespoints pt 7 ps 1.5 lw 3 title "K=7"
unset key
unset label 1
set lmargin at screen 0.575
set rmargin at screen 0.99
set tmargin at screen 0.79
set bmargin at screen 0.595
set xtics norotate format ""
set title "achieved occupancy (%)"
set ytics 25
plot "sweep.dat" index 0 using 1:4 with linespoints pt 7 ps 1.5 lw 3 notitle, "sweep.dat" index 1 using 1:4 with linespoints pt 7 ps 1.5 lw 3 notitle
set lmargin at screen 0.07
set rmargin at screen 0.485
set tmargin at screen 0.475
set bmargin at screen 0.27
set xtics rotate by 90 right format "%g"
set title "DRAM throughput (% of peak)"
set ytics 10
plot "sweep.dat" index 0 using 1:5:xtic(2) with linespoints pt 7 ps 1.5 lw 3 notitle, "sweep.dat" index 1 using 1:5:xtic(2) with linespoints pt 7 ps 1.5 lw 3 notitle
set lmargin at screen 0.575
set rmargin at screen 0.99
set tmargin at screen 0.475
set bmargin at screen 0.27
set xtics rotate by 90 right format "%g"
set title "registers per thread"
set ytics 10
plot "sweep.dat" index 0 using 1:6:xtic(2) with linespoints pt 7 ps 1.5 lw 3 notitle, "sweep.dat" index 1 using 1:6:xtic(2) with linespoints pt 7 ps 1.5 lw 3 notitle
unset multiplot
