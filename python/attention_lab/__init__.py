"""Attention Lab inline in a notebook: the lab's single self-contained file in an iframe's srcdoc.

    import attention_lab
    attention_lab.show(preset="telescope", view="steps,heatmap")
    attention_lab.show_attention(outputs.attentions, tokens)      # Hugging Face, output_attentions=True
    attention_lab.show_layer(q, k, v, tokens=tokens)             # or x=..., wq=..., wk=..., wv=...

Each returns a Lab, which a notebook shows (the last expression of a cell, or IPython's display()).
Standard library only; numpy arrays and PyTorch tensors are read through their own tolist().

How the data reaches the lab: the settings the page takes from its address (preset, view, lang, mode,
and the state of a copied link, "lab=" and its JSON) are written into the file as a JSON element,
<script type="application/json" id="attention-lab-settings"> (an iframe's srcdoc has no address of
its own). Every text is JSON with <, > and & escaped inside it, and the whole file is escaped once
more as the srcdoc attribute's value: nothing given here becomes markup.
"""

import html
import json
import math
import urllib.parse
from importlib import resources

from . import _arrays

__version__ = "0.1.0"
__all__ = ["Lab", "show", "show_attention", "show_layer"]

_PAGE_NAME = "attention-lab.html"
# what the lab shows of a layer (web/src/state/model.mjs PAGE_LIMITS and tokenize.mjs MAX_TOKENS)
MAX_TOKENS = 64
MAX_HEADS = 16
MAX_WIDTH = 128
# the log of a zero weight (a causal mask's): exp(-69.08) = 1e-30, shown as 0.000
_LOG_FLOOR = math.log(1e-30)


class Lab:
    """A lab to show: `settings` (the page's settings, texts) in an iframe `height` pixels high."""

    def __init__(self, settings, height=900):
        if not isinstance(height, int) or isinstance(height, bool) or not 200 <= height <= 10000:
            raise ValueError(f"height must be a whole number of pixels from 200 to 10000, got {height!r}")
        self.settings = {name: value for name, value in settings.items() if value is not None}
        for name, value in self.settings.items():
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a string, got {type(value).__name__}")
        self.height = height

    def page(self):
        """The single file with the settings written into it (a complete HTML document)."""
        page = resources.files(__package__).joinpath(_PAGE_NAME).read_text(encoding="utf-8")
        text = json.dumps(self.settings, ensure_ascii=False)
        # inside <script> nothing may read as a tag or a comment: JSON's own escapes instead
        text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        element = f'<script type="application/json" id="attention-lab-settings">{text}</script>\n'
        if "</head>" not in page:
            raise RuntimeError(f"{_PAGE_NAME} has no </head>: the package is broken")
        return page.replace("</head>", element + "</head>", 1)

    def _repr_html_(self):
        # sandboxed without allow-same-origin: the lab runs in an origin of its own, never the
        # notebook server's (it needs no storage, cookies or requests; downloads are its exports)
        return (f'<iframe srcdoc="{html.escape(self.page(), quote=True)}" title="Attention Lab" '
                'sandbox="allow-scripts allow-downloads allow-popups allow-popups-to-escape-sandbox" '
                f'style="width: 100%; height: {self.height}px; border: 1px solid #ccc" '
                'allow="clipboard-write" loading="eager"></iframe>')

    def __repr__(self):
        return f"Lab({self.settings!r})"


def show(preset=None, view=None, *, sentence=None, lang=None, mode=None, state=None, height=900):
    """The lab on one of its examples (preset: cat-sat, telescope, ...), showing `view` (as the
    component's view attribute: "steps,heatmap"); `state` is a copied link's "lab=..." part."""
    return Lab({"preset": preset, "view": view, "sentence": sentence, "lang": lang, "mode": mode,
                "state": state}, height)


def show_attention(attentions, tokens, *, layer=0, batch=0, view="heatmap", lang=None, height=900):
    """One layer of a model's attention weights, every head: `attentions` as a Hugging Face model
    returns them with output_attentions=True (a tuple of per-layer tensors, batch x heads x n x n;
    torch, numpy or nested lists), or one layer's array (batch x heads x n x n, heads x n x n, n x n).

    The lab computes weights from Q and K, so the weights are written in: one-hot inputs (X = I),
    W_Q of head h = log of its weights, W_K = W_V = I and no scaling, so that the lab's softmax(Q Kᵀ)
    gives back exactly these weights (the tables of Q, K and V show that encoding, not the model's)."""
    weights = _arrays.layer_weights(attentions, layer, batch)
    heads, n = len(weights), len(weights[0])
    tokens = _arrays.token_list(tokens, n, "tokens")
    _check_sizes(n=n, heads=heads, width=n)
    identity = _arrays.identity(n)
    state = {
        "preset": None, "sentence": "", "inputs": {"tokens": tokens, "rows": identity},
        "dModel": n, "heads": heads, "dK": n, "dV": n, "scaleMode": "none", "maskMode": "none",
        "weightsMode": "custom", "useWo": False, "selectedHead": 0,
        "custom": {
            "wq": [max(math.log(w), _LOG_FLOOR) if w > 0 else _LOG_FLOOR for head in weights for row in head for w in row],
            "wk": [v for _ in range(heads) for row in identity for v in row],
            "wv": [v for _ in range(heads) for row in identity for v in row],
        },
    }
    return Lab({"view": view, "lang": lang, "state": _link(state)}, height)


def show_layer(q=None, k=None, v=None, *, x=None, wq=None, wk=None, wv=None, wo=None, heads=1,
               tokens=None, scale="sqrt_dk", causal=False, view="steps,heatmap", lang=None, height=900):
    """One attention layer in the lab: either q, k, v (n x d_k, n x d_k, n x d_v) as computed, or
    inputs x (n x d_model) and weights wq, wk (d_model x heads*d_k), wv (d_model x heads*d_v), and
    optionally wo (heads*d_v x d_model), in the x @ w convention (PyTorch's nn.Linear.weight is the
    transpose). scale: "sqrt_dk", "none" or a divisor; causal: a causal mask."""
    if x is None and wq is None:
        sizes, inputs, custom = _arrays.qkv_as_layer(q, k, v)
    else:
        if q is not None or k is not None or v is not None:
            raise ValueError("give q, k, v or x with wq, wk, wv, not both")
        sizes, inputs, custom = _arrays.weights_as_layer(x, wq, wk, wv, wo, heads)
    n = len(inputs)
    _check_sizes(n=n, heads=sizes["heads"], width=max(sizes.values()))
    state = {
        "preset": None, "sentence": "", "inputs": {"tokens": _arrays.token_list(tokens, n, "tokens"), "rows": inputs},
        **sizes, "weightsMode": "custom", "custom": custom, "useWo": "wo" in custom,
        "maskMode": "causal" if causal else "none", **_scale(scale),
    }
    return Lab({"view": view, "lang": lang, "state": _link(state)}, height)


def _scale(scale):
    if scale in ("sqrt_dk", "none"):
        return {"scaleMode": scale}
    if isinstance(scale, (int, float)) and not isinstance(scale, bool) and math.isfinite(scale) and scale > 0:
        return {"scaleMode": "custom", "scaleDivisor": float(scale)}
    raise ValueError(f"scale must be 'sqrt_dk', 'none' or a positive number, got {scale!r}")


def _check_sizes(n, heads, width):
    if n > MAX_TOKENS:
        raise ValueError(f"the lab shows at most {MAX_TOKENS} tokens; these attentions have {n}")
    if heads > MAX_HEADS:
        raise ValueError(f"the lab shows at most {MAX_HEADS} heads; this layer has {heads}")
    if width > MAX_WIDTH:
        raise ValueError(f"the lab shows at most {MAX_WIDTH} columns (d_model, d_k, d_v); this layer needs {width}")


def _link(state):
    """A copied link's state part: "lab=" and the JSON, percent-encoded (web/src/state/link.mjs)."""
    return "lab=" + urllib.parse.quote(json.dumps(state, separators=(",", ":"), allow_nan=False), safe="")
