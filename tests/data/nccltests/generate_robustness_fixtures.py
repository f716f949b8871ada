#!/usr/bin/env python3
"""Writes the parser-robustness fixtures of this folder (robust_*.log).

Each reproduces a way real nccl-tests output reaches users (see README.md): the layout of
NVIDIA/nccl-tests src/util.cu, wrapped the way launchers, patched loggers, NCCL_DEBUG=INFO and
Open MPI's help aggregation wrap it. Timings are SYNTHETIC (t = latency + S x factor / busbw).
Run: python3 generate_robustness_fixtures.py"""

def fs(value, width):
    power, val = 0, 1
    while value >= val:
        power += 1
        val *= 10
    if power < width - 2: return "%*.2f" % (width, value)
    if power < width - 1: return "%*.1f" % (width, value)
    if power < width + 1: return "%*.0f" % (width, value)
    return "%*.1e" % (width, value)

FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n}
PER_RANK = {"all_gather"}
TITLES = ["#                                                              out-of-place                       in-place          ",
          "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
          "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "]

def row(coll, n, size, lat_us=20.0, busbw=150.0, redop="sum", zero_busbw=False):
    tsize = 4
    count = size // tsize // (n if coll in PER_RANK else 1)
    line = "%12i  %12i  %8s  %6s  %6i" % (size, count, "float", redop, -1)
    for half in range(2):
        t = lat_us + size * FACTOR[coll](n) / (busbw * 1e3) * (1.0 + 0.01 * half)
        alg = size / t / 1e3
        bus = 0.0 if zero_busbw else alg * FACTOR[coll](n)
        line += "  %7s  %6s  %6s  %6s" % (fs(t, 7), fs(alg, 6), fs(bus, 6), "0")
    return line

def sizes(lo, hi):
    s = lo
    while s <= hi:
        yield s
        s *= 2

def devices(n, hosts, gpu="NVIDIA H100 80GB HBM3", pid0=41000):
    out = []
    per = n // hosts
    for r in range(n):
        out.append("#  Rank %2i Group  0 Pid %6i on %10s device %2i [0000:%02x:00] %s"
                   % (r, pid0 + r, "node-%03i" % (r // per + 1), r % per, 0x18 + 0x10 * (r % per), gpu))
    return out

def header(lo, hi, ngpus=1):
    return "# nThread 1 nGpus %i minBytes %i maxBytes %i step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0" % (ngpus, lo, hi)

def footer(avg):
    return ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : %g " % avg, "#"]

def write(name, lines):
    with open(name, "w") as f:
        f.write("\n".join(lines) + "\n")

# 1. A patched logger prefixes header and summary lines with "run(), common.cu:NNN, " (one drops the '#').
lines = ["run(), common.cu:1020, # nThread 1 nGpus 1 minBytes 1048576 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
         "run(), common.cu:1032, #",
         "run(), common.cu:1036, # Using devices"]
lines += ["run(), common.cu:1049, " + d for d in devices(8, 1)]
lines += ["run(), common.cu:1080, " + t for t in TITLES]
lines += [row("all_reduce", 8, s) for s in sizes(1 << 20, 1 << 27)]
lines += ["run(), common.cu:1126, # Out of bounds values : 0 OK",
          "run(), common.cu:1127, Avg bus bandwidth    : 120.5 ",
          "run(), common.cu:1128, #"]
write("robust_logger_prefix.log", lines)

# 2. Two runs in one file (all_gather_perf then all_reduce_perf, nccl-tests 2.10: no binary line),
# NCCL_DEBUG=INFO lines and Open MPI warnings interleaved; the all_gather run names its operation
# only in NCCL INFO "AllGather: opCount" lines (NCCL_DEBUG_SUBSYS=COLL).
mpi_warning = ["--------------------------------------------------------------------------",
               "WARNING: There is at least non-excluded one OpenFabrics device found,",
               "but there are no active ports detected (or Open MPI was unable to use",
               "them).  This is most certainly not what you wanted.  Check your",
               "cables, subnet manager configuration, etc.  The openib BTL will be",
               "ignored for this job.",
               "",
               "  Local host: node-001",
               "--------------------------------------------------------------------------"]
lines = list(mpi_warning)
lines += [header(1 << 20, 1 << 26), "#", "# Using devices"]
devs = devices(4, 1)
lines += devs[:2]
lines += ["[node-001:41000] 3 more processes have sent help message help-mpi-btl-openib.txt / no active ports found",
          "[node-001:41000] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages"]
lines += devs[2:]
lines += ["node-001:41000:41000 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
          "node-001:41000:41000 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>",
          "NCCL version 2.18.5+cuda12.2",
          "node-001:41000:41090 [0] NCCL INFO Channel 00/24 :    0   1   2   3",
          "node-001:41000:41090 [0] NCCL INFO comm 0x55d0c6b0 rank 0 nranks 4 cudaDev 0 busId 18000 - Init COMPLETE"]
lines += TITLES
for i, s in enumerate(sizes(1 << 20, 1 << 26)):
    lines.append("node-001:41000:41000 [0] NCCL INFO AllGather: opCount %x sendbuff 0x7f1a2c000000 recvbuff 0x7f1a2e000000 count %i datatype 7 op 0 root 0 comm 0x55d0c6b0 [nranks=4] stream 0x55d0c1e0" % (i, s // 16))
    lines.append(row("all_gather", 4, s, redop="none"))
lines += footer(55.0)
lines += ["node-001:41000:41000 [0] NCCL INFO comm 0x55d0c6b0 rank 0 nranks 4 cudaDev 0 busId 18000 - Destroy COMPLETE"]
lines += ["[node-001:41200] 3 more processes have sent help message help-mpi-btl-openib.txt / no active ports found"]
lines += [header(1 << 20, 1 << 26), "#", "# Using devices"] + devices(4, 1, pid0=41200)
lines += ["node-001:41200:41290 [0] NCCL INFO Channel 00/24 :    0   1   2   3"] + TITLES
for s in sizes(1 << 20, 1 << 26):
    lines.append(row("all_reduce", 4, s))
lines += footer(120.0)
write("robust_two_runs_interleaved.log", lines)

# 3. mpirun -np 4 of a binary built without MPI=1: four independent one-rank jobs, each printing
# its own header with only Rank 0, busbw 0 and "Avg bus bandwidth : 0", their output interleaved.
lines = []
for j in range(4):
    lines += [header(1 << 20, 1 << 22), "#", "# Using devices",
              "#  Rank  0 Group  0 Pid %6i on   node-001 device  0 [0000:%02x:00] NVIDIA H100 80GB HBM3" % (52000 + j, 0x18 + 0x10 * j),
              "#"]
for j in range(4):
    lines += TITLES
    for s in sizes(1 << 20, 1 << 22):
        lines.append(row("all_reduce", 1, s, zero_busbw=True) if False else
                     "%12i  %12i  %8s  %6s  %6i  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s" % (
                         s, s // 4, "float", "sum", -1, fs(3.0 + s / 1.2e6, 7), fs(s / (3.0 + s / 1.2e6) / 1e3, 6), "0.00", "0",
                         fs(2.0, 7), fs(s / 2.0 / 1e3, 6), "0.00", "N/A"))
    lines += footer(0)
write("robust_singleton_launches.log", lines)

# 4. A pasted excerpt: size-0 rows (-b 0), a literal "..." line for the rows left out, header lines
# with long trailing whitespace.
lines = [header(0, 1 << 30) + " " * 60, "#", "# Using devices" + " " * 40]
lines += [d + " " * 37 for d in devices(8, 1)]
lines += ["#" + " " * 70] + [t + " " * 25 for t in TITLES]
lines += ["           0             0     float     sum      -1     0.06    0.00    0.00      0     0.05    0.00    0.00      0",
          "           0             0     float     sum      -1     0.05    0.00    0.00      0     0.05    0.00    0.00      0"]
lines += [row("all_reduce", 8, s) for s in sizes(8, 64)]
lines += ["..."]
lines += [row("all_reduce", 8, s) for s in sizes(1 << 24, 1 << 30)]
lines += footer(90.0)
write("robust_excerpt_elided.log", lines)

# 5. srun --label "0: " on every line of an 8-rank 2-node run.
lines = [header(1 << 20, 1 << 28), "#", "# Using devices"] + devices(8, 2) + ["#"] + TITLES
lines += [row("all_reduce", 8, s, busbw=40.0) for s in sizes(1 << 20, 1 << 28)]
lines += footer(38.0)
write("robust_srun_label.log", ["0: " + l for l in lines])

# 6. mpirun --tag-output "[1,0]<stdout>:" with NCCL INFO lines on "[1,k]<stderr>:".
body = [header(1 << 20, 1 << 28), "#", "# Using devices"] + devices(8, 2) + ["#"] + TITLES
body += [row("all_reduce", 8, s, busbw=40.0) for s in sizes(1 << 20, 1 << 28)]
body += footer(38.0)
lines = []
for i, l in enumerate(body):
    lines.append("[1,0]<stdout>:" + l)
    if i == 12:
        lines.append("[1,5]<stderr>:node-002:41005:41077 [1] NCCL INFO Channel 01/0 : 5[1] -> 6[2] via P2P/CUMEM")
write("robust_tag_output.log", lines)

# 7. kubectl logs --timestamps of an MPI Operator launcher pod: an RFC 3339 timestamp with nanoseconds
# before every line, then mpirun --tag-output's "[1,0]<stdout>:" (NCCL INFO lines on stderr).
lines = []
for i, l in enumerate(body):
    lines.append("2025-06-01T10:00:%02d.%09iZ [1,0]<stdout>:%s" % (i % 60, 123456789 + i, l))
    if i == 12:
        lines.append("2025-06-01T10:00:%02d.%09iZ [1,5]<stderr>:node-002:41005:41077 [1] NCCL INFO Channel 01/0 : "
                     "5[1] -> 6[2] via P2P/CUMEM" % (i % 60, 123456999 + i))
write("robust_kubectl_timestamps.log", lines)

# 8. docker compose logs: the service name, blanks and "| " before every line.
write("robust_compose_service.log", ["nccl-worker-1  | " + l for l in body])

# 9. all_reduce_perf -d all -o all (src/common.cu: every size for each data type and reduction in turn):
# float and bfloat16 (2-byte elements: twice the count), sum and max, one table; bfloat16 slightly slower.
lines = [header(1 << 20, 1 << 24), "#", "# Using devices"] + devices(8, 1) + ["#"] + TITLES
for dtype, width, slower in (("float", 4, 1.0), ("bfloat16", 2, 1.05)):
    for redop in ("sum", "max"):
        for s in sizes(1 << 20, 1 << 24):
            r = row("all_reduce", 8, s, busbw=150.0 / slower, redop=redop)
            fields = r.split()
            fields[1], fields[2] = str(s // width), dtype
            lines.append("%12s  %12s  %8s  %6s  %6s" % tuple(fields[:5]) + "  " + "  ".join(
                "%7s  %6s  %6s  %6s" % tuple(fields[5 + 4 * k:9 + 4 * k]) for k in range(2)))
lines += footer(120.0)
write("robust_dtype_redop_sweeps.log", lines)

# The fixtures below are modelled on public logs whose pages state no license that allows copying
# them (see /tests/data/nccltests/README.md): same layout and the same way of reaching the user,
# H100 device names and synthetic timings.

# 10. A log quoted in a GitHub reply (modelled on NVIDIA/nccl-tests issue 287): "> " before every line,
# ">" alone for the empty lines, the shell prompt quoted too; one process with -g 4.
lines = ["user@node-001:~/nccl-tests$ ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 4",
         header(8, 1 << 27, ngpus=4), "#", "# Using devices"] + devices(4, 1, pid0=2168673) + ["#"] + TITLES
lines += [row("all_reduce", 4, s, lat_us=15.0, busbw=20.0) for s in sizes(8, 1 << 27)]
lines += footer(9.1) + [""]
write("robust_markdown_quote.log", [("> " + l) if l else ">" for l in lines])

# 11. Several headerless runs in one excerpt (modelled on the `egrep "node|4294967296|..."` output of a
# rccl-tests all_reduce sweep on 1, 2, 4 and 8 nodes of 8 GPUs): a banner line before each run's three
# rows, no header, no device lines; the ranks of each run only in its busbw/algbw.
lines = ['$ egrep "node|4294967296|8589934592|17179869184" result-allreduce-multi.log |grep -v nThread']
for nodes, busbw in ((1, 180.0), (2, 185.0), (4, 183.0), (8, 180.0)):
    lines.append("====== %i-node ======" % nodes)
    lines += [row("all_reduce", 8 * nodes, s, lat_us=50.0, busbw=busbw) for s in sizes(1 << 32, 1 << 34)]
write("robust_headerless_runs.log", lines)

# 12. A device list cut to the first and last rank of each host (modelled on an OCI HPC page's 2-node
# A100 all_reduce): ranks 0 and 7 on the first host, 8 and 15 on the second.
lines = ["SLURM_JOB_NODELIST=gpu-node-[0-1]", "SLURM_NTASKS=16",
         "# nccl-tests version 2.17.9 nccl-headers=22903 nccl-library=22903",
         "# Collective test starting: all_reduce_perf", header(1 << 30, 1 << 33), "#", "# Using devices"]
lines += [d for d in devices(16, 2) if int(d.split()[2]) in (0, 7, 8, 15)]
lines += ["NCCL version 2.29.3+cuda13.1", "#"] + TITLES
lines += [row("all_reduce", 16, s, lat_us=100.0, busbw=90.0) for s in sizes(1 << 30, 1 << 33)]
lines += ["# Out of bounds values : 0 OK", "#", "# Collective test concluded: all_reduce_perf"]
write("robust_device_excerpt_hosts.log", lines)

# 13. One rank (modelled on the single-GPU run of NVIDIA/nccl-tests issue 287): -g 1, busbw 0, the
# in-place algbw absurd (nothing moves).
lines = ["user@node-006:~/nccl-tests$ ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 1",
         header(8, 1 << 27), "#", "# Using devices"] + devices(1, 1, pid0=5092) + ["#"] + TITLES
for s in sizes(8, 1 << 27):
    t_out, t_in = 5.0 + s / 1.5e6, 0.2 + s / 1.5e9
    lines.append("%12i  %12i  %8s  %6s  %6i  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s" % (
        s, s // 4, "float", "sum", -1, fs(t_out, 7), fs(s / t_out / 1e3, 6), fs(0.0, 6), "0",
        fs(t_in, 7), fs(s / t_in / 1e3, 6), fs(0.0, 6), "0"))
lines += footer(0)
write("robust_single_rank.log", lines)

# 14. A sweep of one size (modelled on a 2-node all_gather_perf run quoted with its only row, -b 16G -e 16G).
lines = ["# nccl-tests version 2.18.5 nccl-headers=22803 nccl-library=22803",
         "# Collective test starting: all_gather_perf",
         header(1 << 34, 1 << 34) + " unalign: 0", "#", "# Using devices"] + devices(2, 2) + ["#"]
lines += TITLES
lines += [row("all_gather", 2, 1 << 34, lat_us=30.0, busbw=22.0, redop="none")]
lines += footer(21.9) + ["# Collective test concluded: all_gather_perf"]
write("robust_one_size.log", lines)
