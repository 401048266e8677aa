"""Long values wrap where a reader expects (`breakable`), and every log axis of a chart
reads in round numbers (kernel.plotting's base, applied by `to_dict`)."""

from __future__ import annotations

import plotly.graph_objects as go
from django.template import Context, Template

from kernel.plotting import layout, log_ticks, to_dict
from kernel.templatetags.pages import breakable

DIGEST = "sha256:" + "bb33ef777e4285c2" * 4


def test_a_long_value_may_wrap_after_dots_ats_and_colons_and_stays_escaped() -> None:
    assert breakable("speculation.num_speculative_tokens") == "speculation.<wbr>num_speculative_tokens"
    assert breakable(f"workload:chat@{DIGEST}").startswith(
        "workload:<wbr>chat@<wbr>sha256:<wbr>bb33ef777e4285c2<wbr>"
    )
    assert breakable("<b>a.b</b>") == "&lt;b&gt;a.<wbr>b&lt;/<wbr>b&gt;"
    assert breakable("a & b.c") == "a &amp; b.<wbr>c"
    rendered = Template("{{ v|breakable }}").render(Context({"v": "x.y"}))  # a builtin: no {% load %}
    assert rendered == "x.<wbr>y"


def test_a_log_axis_is_ticked_at_round_numbers() -> None:
    assert log_ticks(5, 120) == [5.0, 10.0, 20.0, 50.0, 100.0]
    assert log_ticks(60, 90) == [60.0, 70.0, 80.0, 90.0]
    assert log_ticks(0.8, 3000) == [1.0, 10.0, 100.0, 1000.0]


def test_every_figure_gets_readable_log_ticks_and_an_explicit_choice_is_kept() -> None:
    fig = go.Figure(go.Scatter(x=[52.0, 71.0, 93.0, 340.0], y=[0.1, 0.5, 0.9, 1.0]))
    fig.update_layout(layout("TTFT distribution", "TTFT (ms)", "share"))
    fig.update_xaxes(type="log")
    axis = to_dict(fig)["layout"]["xaxis"]
    assert axis["ticktext"] == ["70", "100", "200", "300"]
    # Plotly's own labels over less than a decade would read "5 6 7 8 9 100 2 3".
    assert all(len(t) >= 2 for t in axis["ticktext"])
    fig.update_xaxes(tickvals=[1, 4, 16], ticktext=["1", "4", "16"])
    assert to_dict(fig)["layout"]["xaxis"]["ticktext"] == ["1", "4", "16"]
