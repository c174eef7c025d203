#!/usr/bin/env python3
"""Cross-check for conv_layer_bench: the same layers through PyTorch's conv2d (cuDNN underneath),
float32 with TF32 off and cudnn.benchmark on (PyTorch then runs cuDNN's own algorithm search).

    NVIDIA_TF32_OVERRIDE=0 python3 grader/bench/torch_conv_bench.py [--repeats 20]

Timing: CUDA events around each call, L2 flushed (a 256 MB memset) before each repeat, median.
Prints one line per layer with ms and TFLOP/s (2·B·M·Ho·Wo·C·K² flops), the same count
conv_layer_bench uses. Not part of any build; needs only torch.
"""
import argparse
import statistics

import torch
import torch.nn.functional as F

LAYERS = [  # name, B, C, M, H, W, K, S, P, D
    ("B32 C64→64 56×56 K3 P1", 32, 64, 64, 56, 56, 3, 1, 1, 1),
    ("B32 C256→256 14×14 K3 P1", 32, 256, 256, 14, 14, 3, 1, 1, 1),
    ("B16 C3→64 224×224 K7 S2 P3", 16, 3, 64, 224, 224, 7, 2, 3, 1),
    ("B8 C128→128 128×128 K3 P1", 8, 128, 128, 128, 128, 3, 1, 1, 1),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda")
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name(dev)}")
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    for name, b, c, m, h, w, k, s, p, d in LAYERS:
        x = torch.rand(b, c, h, w, device=dev) * 2 - 1
        wt = torch.rand(m, c, k, k, device=dev) * 2 - 1
        ho = (h + 2 * p - d * (k - 1) - 1) // s + 1
        wo = (w + 2 * p - d * (k - 1) - 1) // s + 1
        flops = 2.0 * b * m * ho * wo * c * k * k
        for _ in range(args.warmup):
            F.conv2d(x, wt, stride=s, padding=p, dilation=d)
        times = []
        for _ in range(args.repeats):
            flush.zero_()
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            F.conv2d(x, wt, stride=s, padding=p, dilation=d)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
        ms = statistics.median(times)
        print(f"{name:28s} {ms:9.3f} ms {flops / ms / 1e9:8.2f} TFLOP/s  (torch.conv2d, cuDNN, TF32 off)")


if __name__ == "__main__":
    main()
