#!/usr/bin/env python3
"""What a launch costs: pyptx's eager call beside PyTorch's own ops.

1. A trivial kernel (add 1 to 32 floats, in place) through pyptx's eager
   path, torch.compile and a replayed CUDA graph, beside PyTorch's own
   ``x.add_(1)`` eager and in a replayed graph; and, when JAX sees the GPU, a
   jax.jit function calling a kernel beside jax.jit of ``x + 1``. Each figure
   is the median of --rounds rounds of --launches back-to-back launches
   timed on the host (synchronised before and after). Compiled functions
   (torch.compile(fullgraph=True), by default and mode="reduce-overhead",
   where a row says whether CUDA graphs ran; jax.jit, also with the input
   donated) come in pairs, the same function with the
   native op and with the kernel, in place and out of place, with and
   without a following op; the pair's rounds interleaved; ratio = pyptx /
   native (target <= 1.0x).
2. The small-shape table (the original pyptx's shapes 32x1024, 256x4096,
   1024x8192, 2048x8192): rms_norm, layer_norm, softmax and swiglu, each
   whole call ``k(x, ...)`` (outputs allocated by the call) beside PyTorch's
   fused op (F.rms_norm, F.layer_norm, torch.softmax, F.silu(a) * b), and
   ours with ``out=`` a preallocated tensor. Each figure: CUDA events around
   --calls back-to-back calls on input sets rotated to pass 2x L2, the median
   of --table-rounds rounds, the sides interleaved round by round, the
   garbage collector off; "host" is the time the loop took to enqueue (no
   sync). The rows run shape by shape, the kernels interleaved. Outputs
   checked against float64. "gpu": the same calls captured in one CUDA graph
   and replayed (the GPU's time alone, median of 5 replays). "python": how
   many of our timed calls left the C++ path (0 expected).

usage: launch_overhead.py [--launches N] [--rounds K] [--calls C] [--out DIR] [--overhead-only]
       launch_overhead.py --plot DIR/launch_overhead.json   (the PNG only)
"""
import argparse
import datetime
import gc
import json
import math
import os
import statistics
import sys
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "python"), ROOT]

from benchmarks.harness import write_results  # noqa: E402

SHAPES = ((32, 1024), (256, 4096), (1024, 8192), (2048, 8192))
KERNELS = ("rms_norm", "layer_norm", "softmax", "swiglu")
L2_PASS = 100 << 20  # bytes of inputs rotated through: 2x the H100's 50 MB L2


# -- 1. a trivial kernel --------------------------------------------------------------

def trivial_kernels():
    from pyptx import Tile, kernel, ptx, reg
    from pyptx.types import f32, u32

    @kernel(in_specs=(Tile(32, f32),), grid=(1, 1, 1), block=(32, 1, 1), arch="auto")
    def add_one(X):
        (px,) = ptx.global_ptrs(X)
        tid = reg.from_(ptx.special.tid.x(), u32)
        p = px + tid * 4
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(p))
        ptx.inst.add.f32(v, v, 1.0)
        ptx.inst.st.global_.f32(ptx.addr(p), v)
        ptx.ret()

    @kernel(in_specs=(Tile(32, f32),), out_specs=(Tile(32, f32),), grid=(1, 1, 1),
            block=(32, 1, 1), arch="auto")
    def plus_one(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        off = reg.from_(ptx.special.tid.x(), u32) * 4
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(px + off))
        ptx.inst.add.f32(v, v, 1.0)
        ptx.inst.st.global_.f32(ptx.addr(py + off), v)
        ptx.ret()

    return add_one, plus_one


def per_launch(fn, launches, rounds, sync):
    """Median over rounds of the host time per call, in microseconds."""
    for _ in range(100):
        fn()
    sync()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(launches):
            fn()
        sync()
        times.append((time.perf_counter() - t) / launches * 1e6)
    return statistics.median(times)


def jax_pairs(add_one, plus_one):
    """(name, native fn, pyptx fn, sync) pairs under jax.jit, or [] where
    JAX has no GPU: x + 1 beside plus_one(x), and beside add_one(x) (its
    written input comes back as a result: XLA copies the input first unless
    it is donated, so also both sides with donate_argnums=0, each call
    taking the last call's result)."""
    # JAX would otherwise take most of the GPU's memory next to PyTorch.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    try:
        import jax
        import jax.numpy as jnp
        if jax.default_backend() != "gpu":
            return []
    except ImportError:
        return []
    x = jnp.zeros(32, jnp.float32)
    theirs = jax.jit(lambda a: a + 1)
    ours_out, ours_in = jax.jit(lambda a: plus_one(a)), jax.jit(lambda a: add_one(a))
    theirs_donated = jax.jit(lambda a: a + 1, donate_argnums=0)
    ours_donated = jax.jit(lambda a: add_one(a), donate_argnums=0)
    assert float(ours_out(x)[0]) == 1.0, "plus_one under jax.jit computed wrong"
    assert float(ours_in(x)[0]) == 1.0, "add_one under jax.jit computed wrong"
    assert float(ours_donated(jnp.zeros(32, jnp.float32))[0]) == 1.0, (
        "add_one under jax.jit with its input donated computed wrong")
    state = {"x": jnp.zeros(32, jnp.float32)}

    def run(f):
        def call():
            state["y"] = f(x)
        return call

    def run_donated(f):
        def call():
            state["y"] = state["x"] = f(state["x"])
        return call

    def sync():
        state["y"].block_until_ready()
    return [("jax.jit: x + 1 | plus_one(x)", run(theirs), run(ours_out), sync),
            ("jax.jit: x + 1 | add_one(x), written input", run(theirs), run(ours_in), sync),
            ("jax.jit donated: x + 1 | add_one(x)", run_donated(theirs_donated),
             run_donated(ours_donated), sync)]


def paired(a, b, launches, rounds, sync):
    """per_launch of two functions, interleaved round by round (a machine
    whose speed drifts drifts for both)."""
    for fn in (a, b):
        for _ in range(100):
            fn()
    sync()
    times = ([], [])
    for _ in range(rounds):
        for fn, got in zip((a, b), times):
            t = time.perf_counter()
            for _ in range(launches):
                fn()
            sync()
            got.append((time.perf_counter() - t) / launches * 1e6)
    return statistics.median(times[0]), statistics.median(times[1])


def compiled_pairs(torch, add_one, plus_one):
    """(name, native fn, pyptx fn, sync) pairs of one function compiled
    with torch.compile(fullgraph=True), by default and with
    mode="reduce-overhead" (CUDA graphs), each with PyTorch's own op in
    place of the kernel. Each pair is checked first: the same result, and
    the in-place write kept; reduce-overhead rows say whether CUDA graphs
    ran (cudagraph trees skip a function that writes its input, on both
    sides)."""
    from torch._dynamo.utils import counters
    x = torch.zeros(32, device="cuda")
    sync = torch.cuda.synchronize
    bodies = [
        ("t.add_(1) | add_one(t)", lambda t: t.add_(1), lambda t: add_one(t)),
        ("the same, then t * 2", lambda t: (t.add_(1), t * 2)[1],
         lambda t: (add_one(t), t * 2)[1]),
        ("t + 1 | plus_one(t)", lambda t: t + 1, lambda t: plus_one(t)),
        ("the same, then * 2", lambda t: (t + 1) * 2, lambda t: plus_one(t) * 2),
    ]
    pairs = []
    for mode, (name, native, ours) in [(m, b) for m in (None, "reduce-overhead")
                                       for b in bodies]:
        fns = [torch.compile(fresh(f), fullgraph=True, mode=mode) for f in (native, ours)]
        results, skips = [], []
        for f in fns:
            t = torch.zeros(32, device="cuda")
            skipped = counters["inductor"]["cudagraph_skips"]
            for _ in range(3):  # CUDA graphs: a warm-up run, then recorded
                t.zero_()
                out = f(t)
            sync()
            skips.append(counters["inductor"]["cudagraph_skips"] - skipped)
            results.append((t.clone(), None if out is None else out.clone()))
        (t0, o0), (t1, o1) = results  # (t.add_ returns t, add_one None)
        assert torch.equal(t0, t1) and (o1 is None or torch.equal(o0, o1)), (
            f"compiled {name} ({mode}): pyptx {t1}, {o1}; torch {t0}, {o0}")
        label = "compile" + ("" if mode is None else " " + mode) + f": {name}"
        if mode is not None:
            label += " [graphs: " + "/".join("skipped" if n else "ran" for n in skips) + "]"
        pairs.append((label, lambda f=fns[0]: f(x), lambda f=fns[1]: f(x), sync))
    return pairs


def fresh(f):
    """`f` with a code object of its own: dynamo keeps compiled code per
    code object, so one lambda compiled in several modes would check the
    other modes' entries at each call."""
    return types.FunctionType(f.__code__.replace(), f.__globals__, f.__name__,
                              f.__defaults__, f.__closure__)


def graph_of(torch, fn):
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g.replay


def overhead_rows(torch, launches, rounds):
    add_one, plus_one = trivial_kernels()
    x = torch.zeros(32, device="cuda")
    add_one(x)
    torch.cuda.synchronize()
    assert torch.equal(x, torch.ones_like(x)), f"add_one computed {x}"
    rows = [
        ("torch x.add_(1), eager", lambda: x.add_(1), torch.cuda.synchronize),
        ("pyptx add_one(x), eager", lambda: add_one(x), torch.cuda.synchronize),
        ("torch x.add_(1), graph replay", graph_of(torch, lambda: x.add_(1)),
         torch.cuda.synchronize),
        ("pyptx add_one(x), graph replay", graph_of(torch, lambda: add_one(x)),
         torch.cuda.synchronize),
    ]
    overhead = {name: per_launch(fn, launches, rounds, sync) for name, fn, sync in rows}
    compiled = []
    for name, native, ours, sync in (compiled_pairs(torch, add_one, plus_one) +
                                     jax_pairs(add_one, plus_one)):
        theirs_us, ours_us = paired(native, ours, launches, rounds, sync)
        compiled.append({"function": name, "native_us": theirs_us, "pyptx_us": ours_us,
                         "ratio": ours_us / theirs_us})
    return overhead, compiled


# -- 2. the small-shape table ---------------------------------------------------------

def problem(torch, name, B, N):
    """(make_inputs, torch's op, float64 reference) for one kernel."""
    F = torch.nn.functional

    def rand(*shape, scale=1.0, shift=0.0):
        return torch.randn(*shape, device="cuda") * scale + shift

    if name == "rms_norm":
        return ((lambda: (rand(B, N), rand(N, scale=0.1, shift=1.0))),
                lambda x, w: F.rms_norm(x, (N,), w, eps=1e-6),
                lambda x, w: x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w)
    if name == "layer_norm":
        return ((lambda: (rand(B, N, scale=3.0, shift=1.0), rand(N, scale=0.1, shift=1.0),
                          rand(N, scale=0.1))),
                lambda x, w, b: F.layer_norm(x, (N,), w, b, eps=1e-5),
                lambda x, w, b: F.layer_norm(x, (N,), w, b, eps=1e-5))
    if name == "softmax":
        return ((lambda: (rand(B, N, scale=4.0),)), lambda x: torch.softmax(x, -1),
                lambda x: torch.softmax(x, -1))
    return ((lambda: (rand(B, N, scale=4.0), rand(B, N))), lambda g, u: F.silu(g) * u,
            lambda g, u: F.silu(g) * u)


def timed(torch, fn, sets, calls):
    """(us per call by CUDA events, us per call the host took to enqueue)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    t = time.perf_counter()
    for i in range(calls):
        fn(*sets[i % len(sets)])
    host = time.perf_counter() - t
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3 / calls, host * 1e6 / calls


def gpu_time(torch, fn, sets, calls):
    """us per call of the GPU's work alone: `calls` calls (inputs rotated)
    captured in one CUDA graph, the median of 5 replays."""
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(calls):
            fn(*sets[i % len(sets)])
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(6):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / calls)
    return statistics.median(times[1:])


def table_row(torch, arch, name, B, N, calls, rounds):
    from examples.common.for_arch import example
    build = example(name, arch)[0]
    k = build(B, N)
    make, theirs, reference = problem(torch, name, B, N)
    first = make()
    per_set = sum(t.numel() * t.element_size() for t in first)
    sets = [first] + [make() for _ in range(max(1, math.ceil(L2_PASS / per_set)) - 1)]
    # Correct before timed: the whole call, and out= into a poisoned tensor.
    ref = reference(*[t.double() for t in first])
    poisoned = torch.full((B, N), float("nan"), device="cuda")
    outs = {"ours": k(*first), "ours out=": k(*first, out=poisoned), "torch": theirs(*first)}
    torch.cuda.synchronize()
    errors = {side: ((o.double() - ref).norm() / ref.norm()).item() for side, o in outs.items()}
    for side, err in errors.items():
        assert err < 1e-4, f"{name} {B}x{N}: {side} relative error {err:.2e}"
    out = torch.empty(B, N, device="cuda")
    sides = {"ours": lambda *xs: k(*xs), "ours out=": lambda *xs: k(*xs, out=out),
             "torch": theirs}
    launcher = k._launchers["torch"]
    python_calls = []
    eager = launcher.eager
    launcher.eager = lambda *a, **kw: python_calls.append(1) or eager(*a, **kw)
    samples = {side: [] for side in sides}
    gc.collect()
    gc.disable()  # a collection inside one side's round would land on it alone
    try:
        for r in range(rounds + 3):  # 3 rounds of warm-up; the sides interleaved
            for side, fn in sides.items():
                result = timed(torch, fn, sets, calls)
                if r >= 3:
                    samples[side].append(result)
    finally:
        gc.enable()
    del launcher.eager
    row = {"kernel": name, "B": B, "N": N, "sets": len(sets), "calls": calls,
           "rel_err": errors["ours"], "python": len(python_calls),
           "ours_gpu_us": gpu_time(torch, sides["ours out="], sets, calls),
           "torch_gpu_us": gpu_time(torch, theirs, sets, calls)}
    for side, got in samples.items():
        key = side.replace(" out=", "_out")
        row[f"{key}_us"] = statistics.median(e for e, _ in got)
        row[f"{key}_host_us"] = statistics.median(h for _, h in got)
    row["ratio"] = row["ours_us"] / row["torch_us"]
    del sets, first
    torch.cuda.empty_cache()
    return row


# -- output -----------------------------------------------------------------------------

def plot(result, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = result["table"]
    compiled = result.get("compiled", [])
    panels = len(KERNELS) + 1 + bool(compiled)
    fig, axes = plt.subplots(1, panels, figsize=(4 * panels, 4.2))
    for ax, name in zip(axes, KERNELS):
        mine = [r for r in rows if r["kernel"] == name]
        xs = range(len(mine))
        for i, (key, label) in enumerate([("ours_us", "pyptx k(x)"),
                                          ("ours_out_us", "pyptx k(x, out=y)"),
                                          ("torch_us", "PyTorch")]):
            ax.bar([x + (i - 1) * 0.27 for x in xs], [r[key] for r in mine], 0.27,
                   label=label)
        for x, r in zip(xs, mine):
            ax.annotate(f"{r['ratio']:.2f}x", (x, max(r["ours_us"], r["torch_us"])),
                        ha="center", va="bottom", fontsize=8)
        ax.set_xticks(list(xs), [f"{r['B']}x{r['N']}" for r in mine], fontsize=8)
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_ylabel("us per call (whole call)")
    axes[0].legend(fontsize=8)
    ax = axes[len(KERNELS)]
    names = list(result["overhead"])
    ax.barh(range(len(names)), [result["overhead"][n] for n in names])
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set_xlabel("us per launch (trivial kernel)")
    if compiled:
        ax = axes[-1]
        ys = range(len(compiled))
        ax.barh([y - 0.2 for y in ys], [r["native_us"] for r in compiled], 0.4,
                label="native op")
        ax.barh([y + 0.2 for y in ys], [r["pyptx_us"] for r in compiled], 0.4,
                label="pyptx kernel")
        ax.set_yticks(list(ys), [f"{r['function']} ({r['ratio']:.2f}x)" for r in compiled],
                      fontsize=6)
        ax.set_xlabel("us per call of the compiled function")
        ax.legend(fontsize=7)
    fig.suptitle(f"{result['device']}, torch {result['torch']}, {result['date']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def write(result, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "launch_overhead.json"), "w") as f:
        json.dump(result, f, indent=1)
    keys = ["kernel", "B", "N", "ours_us", "ours_out_us", "torch_us", "ratio",
            "ours_host_us", "ours_out_host_us", "torch_host_us", "ours_gpu_us",
            "torch_gpu_us", "python", "rel_err", "sets", "calls"]
    with open(os.path.join(out_dir, "launch_overhead.csv"), "w") as f:
        f.write(",".join(keys) + "\n")
        for r in result["table"]:
            f.write(",".join(f"{r[k]:.4g}" if isinstance(r[k], float) else str(r[k])
                             for k in keys) + "\n")
    write_results(out_dir, "launch_overhead_compiled", result["device"], result["compiled"],
                  ["function", "native_us", "pyptx_us", "ratio"])
    try:
        plot(result, os.path.join(out_dir, "launch_overhead.png"))
    except ImportError as e:
        print(f"no PNG ({e}): make it elsewhere with --plot", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--table-rounds", type=int, default=15)
    parser.add_argument("--out", help="write launch_overhead.{json,csv,png} here")
    parser.add_argument("--plot", help="only make the PNG of this JSON, beside it")
    parser.add_argument("--overhead-only", action="store_true",
                        help="part 1 only (the trivial kernel and the compiled functions)")
    args = parser.parse_args()
    if args.plot:
        with open(args.plot) as f:
            plot(json.load(f), os.path.splitext(args.plot)[0] + ".png")
        return
    import torch
    major, minor = torch.cuda.get_device_capability()
    arch = f"sm_{major}{minor}" + ("a" if major in (9, 10) else "")
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "date": datetime.date.today().isoformat(),
              "command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
              "table": []}
    result["overhead"], result["compiled"] = overhead_rows(torch, args.launches, args.rounds)
    print(f"{result['device']}, torch {result['torch']}; {args.launches} launches x "
          f"{args.rounds} rounds, median us per launch:")
    for name, us in result["overhead"].items():
        print(f"  {name:34s} {us:7.2f}")
    o = result["overhead"]
    eager = o["pyptx add_one(x), eager"] / o["torch x.add_(1), eager"]
    graph = o["pyptx add_one(x), graph replay"] / o["torch x.add_(1), graph replay"]
    print(f"eager: pyptx / torch = {eager:.2f}x; graph replay: {graph:.2f}x "
          f"(target <= 1.0x)")
    print("\ncompiled function, native op | pyptx kernel: median us per call "
          "(host, the pair interleaved):")
    for r in result["compiled"]:
        print(f"  {r['function']:78s} {r['native_us']:7.2f} {r['pyptx_us']:7.2f} "
              f"{r['ratio']:5.2f}x")
    if result["compiled"]:
        worst = max(result["compiled"], key=lambda r: r["ratio"])
        print(f"compiled: worst pyptx / native = {worst['ratio']:.2f}x ({worst['function']}) "
              f"(target <= 1.0x)")
    result["dlpack_exchange_api"] = hasattr(torch.Tensor, "__dlpack_c_exchange_api__")
    if args.overhead_only:
        if args.out:
            write(result, args.out)
        return
    print(f"\nwhole call, us (CUDA events, median of {args.table_rounds} rounds of "
          f"{args.calls} calls; host: enqueue only):")
    print(f"  {'kernel':10s} {'shape':>9s} {'ours':>8s} {'out=':>8s} {'torch':>8s} "
          f"{'ratio':>6s} {'host ours':>9s} {'torch':>7s} {'gpu ours':>8s} {'torch':>7s} "
          f"{'python':>6s}")
    for B, N in SHAPES:
        for name in KERNELS:
            r = table_row(torch, arch, name, B, N, args.calls, args.table_rounds)
            result["table"].append(r)
            print(f"  {name:10s} {f'{B}x{N}':>9s} {r['ours_us']:8.2f} {r['ours_out_us']:8.2f} "
                  f"{r['torch_us']:8.2f} {r['ratio']:5.2f}x {r['ours_host_us']:9.2f} "
                  f"{r['torch_host_us']:7.2f} {r['ours_gpu_us']:8.2f} {r['torch_gpu_us']:7.2f} "
                  f"{r['python']:6d}", flush=True)
    result["table"].sort(key=lambda r: KERNELS.index(r["kernel"]))
    worst = max(result["table"], key=lambda r: r["ratio"])
    print(f"worst ratio: {worst['kernel']} {worst['B']}x{worst['N']} {worst['ratio']:.2f}x "
          f"(target <= 1.0x at every shape)")
    if args.out:
        write(result, args.out)


if __name__ == "__main__":
    main()
