# The reference fields compiled with torch.jit.script: what a PyTorch user
# tries first to make a model faster (issue 16, "fairness stays first").
#
# `--jit` (with `--tuned`) routes each model's field through these
# functions. They compute exactly what the eager fields compute (the tensor
# part of the field, after the path is evaluated in Python) with the same
# parameters, so the loss of every step is the eager one up to rounding; the
# solver, the path and Adam stay eager, as in a user's script that scripts
# its vector field. TorchScript's profiling executor specialises and
# optimises a function after its first calls, which the warm-up steps cover.
# No fuser setting is changed: torch's defaults are what the user gets.
#
# Imported only after common.setup_environment, which must set the threads
# and BLAS environment before torch loads.
from typing import List

import torch


@torch.jit.script
def matvec(A: torch.Tensor, v: torch.Tensor, broadcast: bool) -> torch.Tensor:
    """[..., m, n] x [..., n] -> [..., m] (common.matvec_fn's two forms)."""
    if broadcast:
        return (A * v.unsqueeze(-2)).sum(-1)
    return torch.matmul(A, v.unsqueeze(-1)).squeeze(-1)


@torch.jit.script
def activation(x: torch.Tensor, name: str) -> torch.Tensor:
    if name == "relu":
        return torch.relu(x)
    if name == "tanh":
        return torch.tanh(x)
    if name == "sigmoid":
        return torch.sigmoid(x)
    return x


@torch.jit.script
def mlp(x: torch.Tensor, weights: List[torch.Tensor], biases: List[torch.Tensor],
        acts: List[str]) -> torch.Tensor:
    """Linear layers, each followed by its activation ("none" for none)."""
    for i in range(len(weights)):
        x = activation(torch.nn.functional.linear(x, weights[i], biases[i]), acts[i])
    return x


@torch.jit.script
def delta_cde_field(x: torch.Tensor, dx: torch.Tensor, W: torch.Tensor, gain: torch.Tensor,
                    bias: torch.Tensor, Wb: torch.Tensor, Wk: torch.Tensor, Wv: torch.Tensor,
                    broadcast: bool) -> torch.Tensor:
    """fwp_delta_cde.py's field (paper 000 Eqs. 24, 25, 32) for evaluated x, dx."""
    n, H, D, DIN = x.shape[0], Wk.shape[0], Wk.shape[1], Wk.shape[2]
    u = torch.nn.functional.layer_norm(x, [DIN], gain, bias, 1e-5)
    beta = torch.sigmoid(u @ Wb.t())
    k = torch.softmax((dx @ Wk.reshape(H * D, DIN).t()).view(n, H, D), -1)
    v = (u @ Wv.reshape(H * D, DIN).t()).view(n, H, D)
    delta = torch.tanh(v - matvec(W, k, broadcast))
    return beta[:, :, None, None] * delta.unsqueeze(-1) * k.unsqueeze(-2)


@torch.jit.script
def cde_mlp_field(z: torch.Tensor, drive: torch.Tensor, weights: List[torch.Tensor],
                  biases: List[torch.Tensor], acts: List[str], broadcast: bool) -> torch.Tensor:
    """ncde.py's and nrde_depth2.py's field: the MLP's matrix times the drive
    (dx/dt for the NCDE, the window's log-signature for the NRDE)."""
    m = drive.shape[-1]
    F = mlp(z, weights, biases, acts)
    return matvec(F.view(z.shape[0], F.shape[-1] // m, m), drive, broadcast)


@torch.jit.script
def gnode_field(h: torch.Tensor, x: torch.Tensor, Wz: torch.Tensor, bz: torch.Tensor,
                weights: List[torch.Tensor], biases: List[torch.Tensor], acts: List[str],
                tau: float) -> torch.Tensor:
    """gnode_flipflop.py's field (paper 003 Eq. 1): gate * (F(h, x) - h) / tau."""
    hx = torch.cat([h, x], -1)
    gate = torch.sigmoid(torch.nn.functional.linear(hx, Wz, bz))
    return gate * (mlp(hx, weights, biases, acts) - h) / tau


def layer_lists(mlps):
    """The weights, biases and activations of common.make_layers' MLPs and
    Linears, chained in order, as the scripted mlp() takes them."""
    weights, biases, acts = [], [], []
    for m in mlps:
        layers = list(m.layers) if hasattr(m, "layers") else [m]
        weights += [layer.weight for layer in layers]
        biases += [layer.bias for layer in layers]
        names = {None: "none", torch.relu: "relu", torch.tanh: "tanh", torch.sigmoid: "sigmoid"}
        act, final = names[getattr(m, "act", None)], names[getattr(m, "final", None)]
        acts += [act] * (len(layers) - 1) + [final]
    return weights, biases, acts
