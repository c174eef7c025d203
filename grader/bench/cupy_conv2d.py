#!/usr/bin/env python3
"""CuPy's 2D convolution as a peer of conv2d_bench (cupy_conv2d.cpp runs it; not part of any build).

    python3 cupy_conv2d.py --probe
    python3 cupy_conv2d.py --image N.npy --mask M.npy --out P.npy --json times.json [--warmup 3] [--repeats 20]

The convolution is cupyx.scipy.ndimage.correlate with zero ghost cells (mode='constant', cval=0),
placed as the lectures place it (docs/design.md, Conventions): scipy centres the mask at K // 2
(+ origin), the lectures at r = (K - 1) // 2, so origin is 0 for odd K and -1 for even K.
Timing as conv2d_bench's own (common's time_kernel): device-resident data, `warmup` calls, then
`repeats` calls, each between two CUDA events, with L2 flushed (a 256 MB memset) before each,
and each queued behind a hold (common's LaunchHold, as nvbench's blocking kernel): a kernel that
spins until the script has queued the whole call, so the events time the GPU's work, not
Python's and CuPy's per-call set-up. A call that waits for the GPU while it is queued would make
the hold give up (after 0.5 s); the repeats are then made again without it, and "held" says so.
Writes P (float32) for conv2d_bench to check, and one JSON object: function, cupy_version,
device, origin, warmup, repeats, held and times_ms, every repeat's time (conv2d_bench summarizes
them as it does its own: median, fastest, slowest). --probe prints the same function and
cupy_version fields, or exits 3 with why CuPy cannot run, on stderr.
"""
import argparse
import ctypes
import json
import sys

FUNCTION = "cupyx.scipy.ndimage.correlate"
HOLD_TIMEOUT_NS = 500_000_000
# common/src/event_timer.cu's hold_until_released: flag[0] set by the host releases it; it sets
# timed_out[0] if it gives up.
HOLD_SOURCE = r"""
extern "C" __global__ void hold(const volatile int* flag, int* timed_out, unsigned long long timeout_ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (flag[0] == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) { *timed_out = 1; return; }
    __nanosleep(1000);
  }
}
"""


class LaunchHold:
    """Two ints of pinned, mapped host memory and the kernel that waits on the first."""

    def __init__(self, cp, np):
        self.np = np
        rt = cp.cuda.runtime
        self.host_ptr = rt.hostAlloc(8, rt.hostAllocMapped | rt.hostAllocPortable)
        self.flags = np.ctypeslib.as_array((ctypes.c_int * 2).from_address(self.host_ptr))
        self.flags[:] = 0
        # With unified addressing (every 64-bit CUDA platform) mapped host memory has the same
        # address on the device as on the host.
        mem = cp.cuda.UnownedMemory(self.host_ptr, 8, self)
        self.device = cp.ndarray((2,), dtype=cp.int32, memptr=cp.cuda.MemoryPointer(mem, 0))
        self.kernel = cp.RawKernel(HOLD_SOURCE, "hold")

    def hold(self):
        self.flags[0] = 0
        self.kernel((1,), (1,), (self.device, self.device[1:], self.np.uint64(HOLD_TIMEOUT_NS)))

    def release(self):
        self.flags[0] = 1

    def timed_out(self):
        gave_up = bool(self.flags[1])
        self.flags[1] = 0
        return gave_up


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
    hold = LaunchHold(cp, np)
    hold.hold()  # compiled and run once, not timed
    hold.release()
    cp.cuda.Device().synchronize()
    if hold.timed_out():
        print("the hold's first run did not see its release", file=sys.stderr)
        return 1
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    held = True
    times = []
    while len(times) < args.repeats:
        if held:
            hold.hold()
        flush.fill(0)
        start.record()
        call()
        stop.record()
        if held:
            hold.release()
        stop.synchronize()
        if held and hold.timed_out():  # the call waited on the GPU: time it unheld, from the start
            held, times = False, []
            continue
        times.append(cp.cuda.get_elapsed_time(start, stop))
    np.save(args.out, cp.asnumpy(p))
    with open(args.json, "w") as f:
        json.dump({"function": FUNCTION, "cupy_version": cp.__version__,
                   "device": cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"].decode(),
                   "origin": origin, "warmup": args.warmup, "repeats": args.repeats, "held": held,
                   "times_ms": times}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
