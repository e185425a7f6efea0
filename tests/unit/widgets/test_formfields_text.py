"""The text of a list or data field reads back as the value it shows (any shape of list)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from quivira.examples import four_bar
from quivira_widgets._formfields import read_text, show_text

MODEL = four_bar()
NUMBER = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).map(
    lambda v: float(f"{v:.6g}"))  # the precision the form shows
ROW = st.lists(NUMBER, min_size=1, max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.one_of(ROW, st.lists(ROW, min_size=1, max_size=3)))
def test_a_list_reads_back_as_the_same_list(value):
    """[0.0] used to be shown as '0' and read back as the number 0 (not a list)."""
    assert read_text(show_text(value), MODEL, "data") == value


def test_a_list_of_one_keeps_its_brackets():
    assert show_text([0.0]) == "[0]" and read_text("[0]", MODEL, "data") == [0]
    assert show_text([[1.0, 0.0]]) == "[[1, 0]]"
    assert read_text(show_text([[1.0, 0.0]]), MODEL, "data") == [[1.0, 0.0]]
