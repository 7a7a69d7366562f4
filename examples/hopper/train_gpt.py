"""Training a small GPT-style model with ``pyptx.ops.flash_attention``.

Two layers of: RMSNorm -> grouped-query attention (8 query heads, 2 K/V
heads, D = 128, causal, rotary positions) -> residual -> RMSNorm -> SwiGLU
MLP -> residual; a token embedding before, a final RMSNorm and an untied
head after. Parameters and AdamW's state are float32; the forward and
backward run under bf16 autocast, so q, k and v reach the attention as
bf16 (batch, seq, heads, D) tensors: the layout the op takes by default.
The attention is a function the model is given: ``pyptx_attention`` (our
op, forward and backward on the Hopper kernels) or ``sdpa_attention``
(torch's scaled_dot_product_attention, the reference of the maths).

The data: each sequence is a block of PERIOD tokens drawn from a Zipf
distribution over VOCAB tokens, repeated to the sequence's length. The
loss starts at about ln(VOCAB); the token frequencies alone bring it to
their entropy (UNIGRAM_NATS), since a block's tokens are independent;
only attention (to the token PERIOD - 1 positions back, or to the earlier
copy of the current token) takes it below that.

    python examples/hopper/train_gpt.py          # prints the PTX of the model's attention
    python examples/hopper/train_gpt.py --train  # on a Hopper GPU: our op, sdpa, our op compiled

test/gpu/test_training.py checks the two loss curves against each other.
"""
from __future__ import annotations

import contextlib
import math
import os
import statistics
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import sdpa_kernel  # noqa: E402
from torch import nn  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx.ops import flash_attention  # noqa: E402

VOCAB = 512
D_MODEL = 1024
HEADS, HEADS_KV, HEAD_DIM = 8, 2, 128
FFN = 2816                    # SwiGLU hidden size: about 8/3 * D_MODEL, a multiple of 128
LAYERS = 2
BATCH, SEQ = 8, 512
PERIOD = 16                   # the repeated block's length
ZIPF = 1.1                    # token i has probability proportional to 1 / (i + 1) ** ZIPF
STEPS = 200
LR, WARMUP = 1e-3, 20


def token_probs():
    weights = [1 / (i + 1) ** ZIPF for i in range(VOCAB)]
    return [w / sum(weights) for w in weights]


UNIGRAM_NATS = -sum(p * math.log(p) for p in token_probs())


def batches(steps, seed=0, device="cuda"):
    """`steps` (inputs, targets) pairs of (BATCH, SEQ) token ids: blocks of
    PERIOD Zipf-distributed tokens, repeated."""
    g = torch.Generator(device=device).manual_seed(seed)
    probs = torch.tensor(token_probs(), device=device)
    repeats = -(-(SEQ + 1) // PERIOD)
    out = []
    for _ in range(steps):
        blocks = torch.multinomial(probs, BATCH * PERIOD, replacement=True, generator=g)
        tokens = blocks.view(BATCH, PERIOD).repeat(1, repeats)[:, :SEQ + 1]
        out.append((tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()))
    return out


# -- attention: (batch, seq, heads, D) q and (batch, seq, heads_kv, D) k, v, bf16 ----------

def pyptx_attention(q, k, v):
    return flash_attention(q, k, v, causal=True)


def sdpa_attention(backend=None):
    """sdpa (with one backend, if given) on the same tensors; each K/V head
    repeated for its query heads, which every backend takes."""
    def attend(q, k, v):
        group = q.shape[2] // k.shape[2]
        q, k, v = (x.transpose(1, 2) for x in (q, k, v))
        k, v = (x.repeat_interleave(group, 1) for x in (k, v))
        with sdpa_kernel(backend) if backend is not None else contextlib.nullcontext():
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return o.transpose(1, 2)
    return attend


# -- the model ---------------------------------------------------------------------------

def rotary_tables(seq, device):
    """cos and sin of the rotary angles, (seq, 1, HEAD_DIM // 2) f32."""
    inv_freq = 10000.0 ** (-torch.arange(0, HEAD_DIM, 2, device=device) / HEAD_DIM)
    angles = torch.arange(seq, device=device)[:, None] * inv_freq[None, :]
    return angles.cos()[:, None, :], angles.sin()[:, None, :]


def rotate(x, cos, sin):
    """Rotary positions (rotate-half form) of (batch, seq, heads, D) x, in f32."""
    x1, x2 = x.float().chunk(2, -1)
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), -1).to(x.dtype)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        x = x.float()
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Block(nn.Module):
    def __init__(self, attend):
        super().__init__()
        self.attend = attend
        self.attn_norm, self.mlp_norm = RMSNorm(D_MODEL), RMSNorm(D_MODEL)
        self.wq = nn.Linear(D_MODEL, HEADS * HEAD_DIM, bias=False)
        self.wkv = nn.Linear(D_MODEL, 2 * HEADS_KV * HEAD_DIM, bias=False)
        self.wo = nn.Linear(HEADS * HEAD_DIM, D_MODEL, bias=False)
        self.w_gate_up = nn.Linear(D_MODEL, 2 * FFN, bias=False)
        self.w_down = nn.Linear(FFN, D_MODEL, bias=False)

    def forward(self, x, cos, sin):
        B, S, _ = x.shape
        h = self.attn_norm(x)
        q = rotate(self.wq(h).view(B, S, HEADS, HEAD_DIM), cos, sin)
        k, v = self.wkv(h).view(B, S, 2, HEADS_KV, HEAD_DIM).unbind(2)
        o = self.attend(q, rotate(k, cos, sin), v)
        x = x + self.wo(o.reshape(B, S, HEADS * HEAD_DIM))
        gate, up = self.w_gate_up(self.mlp_norm(x)).chunk(2, -1)
        return x + self.w_down(F.silu(gate) * up)


class GPT(nn.Module):
    def __init__(self, attend):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D_MODEL)
        self.blocks = nn.ModuleList(Block(attend) for _ in range(LAYERS))
        self.norm = RMSNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB, bias=False)
        for name, p in self.named_parameters():
            if p.dim() == 2:    # the residual branches' outputs scaled down, as GPT-2 does
                residual = name.endswith(("wo.weight", "w_down.weight"))
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * LAYERS) if residual else 0.02)

    def forward(self, tokens, targets):
        """Mean next-token cross-entropy (f32)."""
        cos, sin = rotary_tables(tokens.shape[1], tokens.device)
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x, cos, sin)
        logits = self.head(self.norm(x))
        return F.cross_entropy(logits.float().reshape(-1, VOCAB), targets.reshape(-1))


# -- training ----------------------------------------------------------------------------

def initial_state(seed=0):
    """The initial weights (one copy, so that every run starts from them)."""
    torch.manual_seed(seed)
    return {k: v.clone() for k, v in GPT(None).state_dict().items()}


def new_model(attend, state):
    model = GPT(attend).cuda()
    model.load_state_dict(state)
    return model


def autocast_loss(model):
    def loss(tokens, targets):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return model(tokens, targets)
    return loss


def train(model, data, compiled=False):
    """(losses, median step time in ms) of training `model` on `data` with
    AdamW (warm-up, then a constant rate); each step (forward, backward,
    optimizer) timed with CUDA events, the first 5% left out (kernel builds).
    compiled: the step under torch.compile: the loss (the model's forward,
    and through AOTAutograd its backward) with fullgraph=True, so a graph
    break in the model raises; the AdamW step compiled as PyTorch's
    compiled-optimizer recipe says (fullgraph=False: torch.optim breaks the
    graph on purpose around its no-grad region), with the learning rate a
    tensor so that the warm-up's changes do not recompile it."""
    loss_fn = autocast_loss(model)
    if compiled:
        opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(LR), betas=(0.9, 0.95),
                                weight_decay=0.1, foreach=True, capturable=True)
        loss_fn = torch.compile(loss_fn, fullgraph=True)
        opt_step = torch.compile(lambda: opt.step())
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=LR, betas=(0.9, 0.95),
                                weight_decay=0.1, fused=True)
        opt_step = opt.step
    warmup = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(1.0, (step + 1) / WARMUP))
    losses, events = [], []
    for tokens, targets in data:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        loss = loss_fn(tokens, targets)
        loss.backward()
        opt_step()
        warmup.step()
        opt.zero_grad(set_to_none=True)
        end.record()
        losses.append(loss.detach())
        events.append((start, end))
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in events[len(events) // 20:]]
    return torch.stack(losses).tolist(), statistics.median(times)


def attention_kernel():
    """The forward kernel pyptx_attention launches for the model's q, k, v."""
    from examples.hopper.flash_attention import build_flash_attention
    return build_flash_attention(BATCH, HEADS, SEQ, HEAD_DIM, causal=True, heads_kv=HEADS_KV,
                                 layout="bshd")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "--train" not in argv:
        print(attention_kernel().ptx(), end="")
        return
    state, data = initial_state(), batches(STEPS)
    print(f"loss: ln(vocab) {math.log(VOCAB):.3f}, unigram entropy {UNIGRAM_NATS:.3f}")
    runs = (("pyptx", pyptx_attention, False), ("sdpa", sdpa_attention(), False),
            ("pyptx, compiled", pyptx_attention, True))
    for name, attend, compiled in runs:
        losses, ms = train(new_model(attend, state), data, compiled)
        every = " ".join(f"{x:.3f}" for x in losses[::STEPS // 10])
        print(f"{name:15s} median step {ms:6.2f} ms; loss every {STEPS // 10} steps: {every}; "
              f"last {losses[-1]:.3f}")


if __name__ == "__main__":
    main()
