"""Host memory copy bandwidth by thread count (numpy.copyto in threads, 1 GiB): what bounds
staged host-device copies, which copy between the caller's memory and pinned buffers on the CPU.
Prints the CPUs this process may use and the cgroup CPU quota."""

import os, time, threading, numpy as np
print("cpu_count", os.cpu_count(), "affinity", len(os.sched_getaffinity(0)))
for f in ["/sys/fs/cgroup/cpu.max", "/sys/fs/cgroup/cpu/cpu.cfs_quota_us"]:
    try: print(f, open(f).read().strip())
    except OSError: print(f, "-")
n = 1 << 28  # 1 GiB of float32
src = np.ones(n, np.float32); dst = np.zeros(n, np.float32); dst[:] = 2
for threads in [1, 2, 4, 8, 16]:
    per = n // threads
    def work(i): np.copyto(dst[i*per:(i+1)*per], src[i*per:(i+1)*per])
    best = 1e9
    for _ in range(3):
        ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
        t = time.perf_counter(); [x.start() for x in ts]; [x.join() for x in ts]; best = min(best, time.perf_counter() - t)
    print(f"{threads} threads: {4*n/best/1e9:.1f} GB/s")
