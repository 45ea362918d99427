"""Arrays as nested lists of floats, checked, with the field named in every message.

torch tensors (.detach().cpu().tolist()), numpy arrays (.tolist()) and nested lists or tuples are
taken alike; nothing here imports numpy or torch.
"""

import math
import re
import unicodedata


def to_lists(value, field):
    """`value` as nested lists of floats (a number stays a float)."""
    if hasattr(value, "detach"):  # a torch tensor: off the graph and the GPU first
        value = value.detach().cpu()
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [to_lists(item, field) for item in value]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{field} must hold numbers, found {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{field} holds {number}: every value must be a finite number")
    return number


def shape(value):
    """The shape of nested lists, checked to be rectangular (None where it is not)."""
    if not isinstance(value, list):
        return ()
    inner = [shape(item) for item in value]
    if any(s is None or s != inner[0] for s in inner):
        return None
    return (len(value),) + (inner[0] if inner else ())


def matrix(value, field, rows=None, columns=None):
    """A rows x columns matrix (nested lists of floats); None stays None."""
    if value is None:
        return None
    data = to_lists(value, field)
    found = shape(data)
    if found is None or len(found) != 2 or 0 in found:
        raise ValueError(f"{field} must be a matrix (rows x columns), got shape {found or 'ragged'}")
    for expected, actual, what in ((rows, found[0], "rows"), (columns, found[1], "columns")):
        if expected is not None and actual != expected:
            raise ValueError(f"{field} has {actual} {what}; expected {expected}")
    return data


def layer_weights(attentions, layer, batch):
    """One layer's attention weights, heads x n x n, from what output_attentions=True gives."""
    data = to_lists(attentions, "attentions")
    found = shape(data)
    if found is not None and len(found) == 5:  # every layer: layers x batch x heads x n x n
        if not isinstance(layer, int) or isinstance(layer, bool) or not -found[0] <= layer < found[0]:
            raise ValueError(f"layer must be a whole number below {found[0]} (the model's layers), got {layer!r}")
        data = data[layer]
        found = found[1:]
    if found is None or len(found) not in (2, 3, 4) or found[-1] != found[-2] or 0 in found:
        raise ValueError("attentions must be per-layer weights (batch x heads x n x n, heads x n x n or n x n), "
                         f"got shape {found or 'ragged'}")
    if len(found) == 4:
        if not isinstance(batch, int) or not 0 <= batch < found[0]:
            raise ValueError(f"batch must be a whole number below {found[0]}, got {batch!r}")
        data = data[batch]
    elif len(found) == 2:
        data = [data]
    for h, head in enumerate(data):
        for i, row in enumerate(head):
            if min(row) < 0 or abs(sum(row) - 1) > 1e-3:
                raise ValueError(f"attentions: head {h + 1}, row {i + 1} (counting from 1) is not a softmax row "
                                 f"(values from 0, summing to 1; sum {sum(row):.4f})")
    return data


# The lab's tokens are words as its tokenizer reads them (web/src/layers/load.mjs safeLabel):
# "##ing" -> "ing", "[CLS]" -> "CLS", GPT-2's "Ġcat" -> "cat"; what is left of nothing is "t1", "t2", ...
_LABEL = re.compile(r"^[^\W_]+(?:['’][^\W_]+)*$")


def safe_label(label, i):
    cleaned = unicodedata.normalize("NFC", str(label))
    cleaned = re.sub(r"^Ġ", "", cleaned)
    cleaned = "".join(c for c in cleaned if c.isalnum() or c in "'’")[:24]
    return cleaned if _LABEL.match(cleaned) else f"t{i + 1}"


def token_list(tokens, n, field):
    """n token labels the lab can show; None gives t1 ... tn."""
    if tokens is None:
        return [f"t{i + 1}" for i in range(n)]
    if isinstance(tokens, str) or not hasattr(tokens, "__len__"):
        raise TypeError(f"{field} must be a list of strings, got {type(tokens).__name__}")
    if len(tokens) != n:
        raise ValueError(f"{field} has {len(tokens)} entries; the attention has {n} tokens")
    return [safe_label(token, i) for i, token in enumerate(tokens)]


def identity(n):
    return [[1.0 if r == c else 0.0 for c in range(n)] for r in range(n)]


def qkv_as_layer(q, k, v):
    """q, k, v given: inputs X = [q | k | v] and W_Q, W_K, W_V that pick each part (exact)."""
    if q is None or k is None or v is None:
        raise ValueError("give q, k and v (or x with wq, wk, wv)")
    q = matrix(q, "q")
    n, dk = len(q), len(q[0])
    k = matrix(k, "k", rows=n, columns=dk)
    v = matrix(v, "v", rows=n)
    dv = len(v[0])
    width = 2 * dk + dv

    def picker(offset, columns):
        return [1.0 if r == offset + c else 0.0 for r in range(width) for c in range(columns)]

    inputs = [q[i] + k[i] + v[i] for i in range(n)]
    sizes = {"dModel": width, "heads": 1, "dK": dk, "dV": dv}
    return sizes, inputs, {"wq": picker(0, dk), "wk": picker(dk, dk), "wv": picker(2 * dk, dv)}


def weights_as_layer(x, wq, wk, wv, wo, heads):
    """x and the weights in the x @ w convention, as the lab's head-major custom weights."""
    if not isinstance(heads, int) or isinstance(heads, bool) or heads < 1:
        raise ValueError(f"heads must be a whole number from 1, got {heads!r}")
    x = matrix(x, "x")
    d_model = len(x[0])
    wq = matrix(wq, "wq", rows=d_model)
    wk = matrix(wk, "wk", rows=d_model, columns=len(wq[0]))
    wv = matrix(wv, "wv", rows=d_model)
    for name, w in (("wq", wq), ("wv", wv)):
        if len(w[0]) % heads:
            raise ValueError(f"{name} has {len(w[0])} columns, not a multiple of heads ({heads})")
    dk, dv = len(wq[0]) // heads, len(wv[0]) // heads

    def head_major(w, d):
        return [w[r][h * d + c] for h in range(heads) for r in range(d_model) for c in range(d)]

    custom = {"wq": head_major(wq, dk), "wk": head_major(wk, dk), "wv": head_major(wv, dv)}
    if wo is not None:
        custom["wo"] = [value for row in matrix(wo, "wo", rows=heads * dv, columns=d_model) for value in row]
    return {"dModel": d_model, "heads": heads, "dK": dk, "dV": dv}, x, custom
