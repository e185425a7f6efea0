"""``infer_joints`` against exact rational geometry on random bars of a small grid.

The oracle intersects every pair of segments in :class:`fractions.Fraction` arithmetic (no
rounding): crossing pairs meet at the one point with both parameters in [0, 1]; parallel
pairs only where an end point of one is an end point of the other. Bars meeting at the same
exact point form one joint, and each bar's local coordinate there is ``u - 1/2``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quivira import bar_joint_model

POINT = st.tuples(st.integers(0, 4), st.integers(0, 4))
SEGMENT = st.tuples(POINT, POINT).filter(lambda s: s[0] != s[1])


def exact_joints(segments: list) -> dict:
    """``{point: {bar: s}}`` of every point where two or more bars meet, exactly."""
    F = Fraction
    meets: dict = {}

    def hit(P, a, ua, b, ub):
        at = meets.setdefault(P, {})
        at.setdefault(a, ua - F(1, 2))
        at.setdefault(b, ub - F(1, 2))

    for a, (pa, qa) in enumerate(segments):
        ra = (F(qa[0] - pa[0]), F(qa[1] - pa[1]))
        for b in range(a + 1, len(segments)):
            pb, qb = segments[b]
            rb = (F(qb[0] - pb[0]), F(qb[1] - pb[1]))
            cross = ra[0] * rb[1] - ra[1] * rb[0]
            if cross == 0:  # parallel: shared end points only
                for ua, P in ((F(0), pa), (F(1), qa)):
                    for ub, Q in ((F(0), pb), (F(1), qb)):
                        if P == Q:
                            hit((F(P[0]), F(P[1])), a, ua, b, ub)
                continue
            d = (F(pb[0] - pa[0]), F(pb[1] - pa[1]))
            ua = (d[0] * rb[1] - d[1] * rb[0]) / cross
            ub = (d[0] * ra[1] - d[1] * ra[0]) / cross
            if 0 <= ua <= 1 and 0 <= ub <= 1:
                hit((pa[0] + ua * ra[0], pa[1] + ua * ra[1]), a, ua, b, ub)
    return meets


@settings(max_examples=60, deadline=None)
@given(st.lists(SEGMENT, min_size=2, max_size=12))
def test_inferred_joints_are_the_exact_meeting_points(segments):
    m = bar_joint_model()
    for p, q in segments:
        m.add_bar_from_point_pair(p, q)
    m.infer_joints()
    want = exact_joints(segments)
    got = {}
    bars = m.bars
    for jt in m.joints:
        x, y = bars[jt.bars[0]].point(jt.s[0])
        key = min(want, key=lambda P: abs(float(P[0]) - x) + abs(float(P[1]) - y),
                  default=None)
        assert key is not None and abs(float(key[0]) - x) + abs(float(key[1]) - y) < 1e-9
        got[key] = dict(zip(jt.bars, jt.s))
    assert set(got) == set(want)
    for P, bars in want.items():
        assert sorted(got[P]) == sorted(bars)
        for b, s in bars.items():
            assert got[P][b] == pytest.approx(float(s), abs=1e-12)
