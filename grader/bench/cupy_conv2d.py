#!/usr/bin/env python3
"""CuPy's 2D convolution as a peer of conv2d_bench (cupy_conv2d.cpp runs it; not part of any build).

    python3 cupy_conv2d.py --probe
    python3 cupy_conv2d.py --image N.npy --mask M.npy --out P.npy --json times.json [--warmup 3] [--repeats 20]

The convolution is cupyx.scipy.ndimage.correlate with zero ghost cells (mode='constant', cval=0),
placed as the lectures place it (docs/design.md, Conventions): scipy centres the mask at K // 2
(+ origin), the lectures at r = (K - 1) // 2, so origin is 0 for odd K and -1 for even K.
Timing as conv2d_bench's own (common's time_kernel): device-resident data, `warmup` calls, then
`repeats` calls, each between two CUDA events, with L2 flushed (a 256 MB memset) before each.
Writes P (float32) for conv2d_bench to check, and one JSON object: function, cupy_version,
device, origin, warmup, repeats and times_ms, every repeat's time (conv2d_bench summarizes them
as it does its own: median, fastest, slowest). --probe prints the same function and cupy_version fields, or exits 3 with why CuPy
cannot run, on stderr.
"""
import argparse
import json
import sys

FUNCTION = "cupyx.scipy.ndimage.correlate"


def load_cupy():
    try:
        import cupy
        import cupyx.scipy.ndimage
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # ImportError, or a CUDA error: either way no CuPy peer
        print(f"CuPy cannot run here: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(3)
    return cupy, cupyx.scipy.ndimage


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", action="store_true")
    ap.add_argument("--image")
    ap.add_argument("--mask")
    ap.add_argument("--out")
    ap.add_argument("--json")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()
    cp, ndi = load_cupy()
    if args.probe:
        print(json.dumps({"function": FUNCTION, "cupy_version": cp.__version__}))
        return 0
    if not (args.image and args.mask and args.out and args.json) or args.repeats < 1 or args.warmup < 0:
        ap.error("--image, --mask, --out and --json are needed, --repeats ≥ 1, --warmup ≥ 0")
    import numpy as np

    image, mask = np.load(args.image), np.load(args.mask)
    if image.dtype != np.float32 or mask.dtype != np.float32 or image.ndim != 2 or mask.ndim != 2 \
            or mask.shape[0] != mask.shape[1]:
        print(f"expected a 2D float32 image and a square float32 mask, got {image.dtype}{image.shape} and "
              f"{mask.dtype}{mask.shape}", file=sys.stderr)
        return 2
    k = mask.shape[0]
    origin = 0 if k % 2 else -1
    n, m = cp.asarray(image), cp.asarray(mask)
    p = cp.empty_like(n)
    flush = cp.empty(256 << 20, dtype=cp.uint8)

    def call():
        ndi.correlate(n, m, output=p, mode="constant", cval=0.0, origin=origin)

    for _ in range(args.warmup):
        call()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(args.repeats):
        flush.fill(0)
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    np.save(args.out, cp.asnumpy(p))
    with open(args.json, "w") as f:
        json.dump({"function": FUNCTION, "cupy_version": cp.__version__,
                   "device": cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"].decode(),
                   "origin": origin, "warmup": args.warmup, "repeats": args.repeats, "times_ms": times}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
