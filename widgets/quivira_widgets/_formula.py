"""Typeset one symbolic entry of M, J, W or λ with readable names.

The compiled equations use runtime parameters ``par[i]`` for every numeric datum; the
bodies and elements say how each one is written (:func:`parameter_symbols`), so
the formula can be shown in the usual symbols: ``m_i``, ``I_i = m_i L_i²/12``, ``g``, ``s L``
of the points on bars, load components. SymPy is a lab/test dependency only: it is imported
when a formula is asked for, and without it the heyoka expression is shown as text.
"""

from __future__ import annotations

import html

from ._modelinfo import n_bodies

MAX_CHARS = 4000  # longer heyoka expressions are shown as text (typesetting would be slow)
MAX_NODES = 1500  # SymPy trees larger than this are shown as text, too


def parameter_symbols(model) -> list[list[tuple[str, int]]]:
    """Return the readable symbol of the model's first runtime parameters, in ``par`` order.

    As factors ``(name, power)``; from the bodies' and elements' own ``parameter_symbols``:
    ``g``, then every body's parameters, then every element's (in row order, as the
    compiled code lays them out). The run's own parameters after them have no symbol.
    """
    bodies = model.bodies
    out: list[list[tuple[str, int]]] = [[("g", 1)]]
    for i, b in enumerate(bodies):
        sym = b.parameter_symbols(i)
        out += [sym.get(name, []) for name, _ in b.parameters(model.g)]
    position: dict[type, int] = {}
    for el in model.elements.values():
        pos = position.get(type(el), 0)
        position[type(el)] = pos + 1
        sym = el.parameter_symbols(pos, bodies)
        out += [sym.get(tuple(name), []) for name, _ in el.parameters(bodies)]
    return out


def _param_symbols(sp, model) -> dict:
    """Map ``Symbol("par[i]")`` to a SymPy expression in readable names.

    From :func:`parameter_symbols` (products of named factors); ``p_i`` where there is none.
    """
    out = {}
    for i, factors in enumerate(parameter_symbols(model)):
        e = sp.Integer(1)
        for name, power in factors:
            e = e * sp.Symbol(name) ** power
        out[f"par[{i}]"] = e if factors else sp.Symbol(f"p_{i}")
    return out


def _variable_symbols(sp, n_bars: int) -> dict:
    S = sp.Symbol
    out = {}
    for i in range(n_bars):
        out.update({f"x{i}": S(f"x_{i}"), f"y{i}": S(f"y_{i}"), f"th{i}": S(f"theta_{i}"),
                    f"vx{i}": S(f"xdot_{i}"), f"vy{i}": S(f"ydot_{i}"),
                    f"om{i}": S(f"thetadot_{i}")})
    return out


def _tree_size(sp, expr, limit: int) -> int:
    """Count the nodes of a SymPy tree, stopping at ``limit``."""
    n = 0
    for _ in sp.preorder_traversal(expr):
        n += 1
        if n >= limit:
            break
    return n


def entry_html(expr, model, name: str) -> tuple[str, str]:
    """HTML for ``name = expr``: ``("latex", html)`` typeset, or ``("text", html)``.

    Parameters
    ----------
    expr : heyoka.expression or float
        The entry.
    model : quivira.bar_joint_model
        Its model (for the meaning of the runtime parameters).
    name : str
        LaTeX of the entry's name, e.g. ``"W_{0,1}"``.
    """
    import heyoka as hy

    if not isinstance(expr, hy.expression):
        if float(expr) == 0.0:
            return "latex", f"$${name} = 0$$ <i>(a structural zero: absent from the equations)</i>"
        expr = hy.expression(float(expr))
    text = str(expr)
    name_text = html.escape(name.replace("\\lambda", "λ").replace("{", "").replace("}", ""))
    if len(text) > MAX_CHARS:
        return "text", (f"<div>{name_text}: {len(text)} characters, too long to "
                        "typeset; the start of the heyoka expression:</div>"
                        f"<pre style='white-space:pre-wrap;font-size:0.8em'>"
                        f"{html.escape(text[:MAX_CHARS])} …</pre>")
    try:
        import sympy as sp
    except ImportError:
        return "text", (f"<div>{name_text} =</div><pre style='white-space:pre-wrap;"
                        f"font-size:0.85em'>{html.escape(text)}</pre><div style='color:#607d8b'>"
                        "(install sympy to see it typeset)</div>")
    s = hy.to_sympy(expr)
    if _tree_size(sp, s, MAX_NODES) >= MAX_NODES:
        return "text", (f"<div>{name_text} has more than {MAX_NODES} terms once written "
                        "out without shared subexpressions, too many to typeset; the heyoka "
                        "expression:</div><pre style='white-space:pre-wrap;font-size:0.8em'>"
                        f"{html.escape(text)}</pre>")
    names = {**_param_symbols(sp, model), **_variable_symbols(sp, n_bodies(model))}
    s = s.xreplace({x: names[x.name] for x in s.free_symbols if x.name in names})
    floats = s.atoms(sp.Float)
    if floats:
        s = s.xreplace({f: sp.nsimplify(f, rational=True, tolerance=1e-12) for f in floats})
    return "latex", f"$${name} = {sp.latex(s)}$$"
