"""Jump detection on series as users hold them: dates with time zones or fractions of a
second, and the command's output paths."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from pymc_vsk.cli import main
from pymc_vsk.jumps import find_jumps
from pymc_vsk.jumps.dates import date_labels, date_scale, decimal_years

#: A step of 2 after 30 observations, noise sd 0.1.
STEP = np.where(np.arange(60) < 30, 0.0, 2.0) + 0.1 * np.random.default_rng(0).normal(size=60)


def run_cli(capsys, *argv: object) -> tuple[int, str, str]:
    status = main(["detect-jumps", *map(str, argv)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def write_csv(tmp_path, x: list[str], name: str = "data.csv"):
    path = tmp_path / name
    rows = "".join(f"{t},{v:.4f}\n" for t, v in zip(x, STEP, strict=True))
    path.write_text("t,v\n" + rows)
    return path


# -- dates ------------------------------------------------------------------------------------
def test_mean_reads_zoned_dates_on_the_scale_of_the_data():
    """Hourly data across a change to summer time are read in UTC; a few of those hours,
    which do not cross it, must be read in UTC too, not in local time (two hours off)."""
    hours = pd.date_range("2020-03-28", periods=60, freq="h", tz="Europe/Paris")
    post = find_jumps(hours, STEP, draws=50, chains=2)
    np.testing.assert_allclose(post.dates(hours[27:33]), post.x[27:33], rtol=0, atol=1e-9)
    np.testing.assert_allclose(post.mean(hours[27:33])[0], post.mean(hours)[0][27:33])
    # and the other way round: data that keep one offset are read in local time, also for
    # new dates across the change
    week = pd.date_range("2020-03-20", periods=60, freq="h", tz="Europe/Paris")
    scale = date_scale(week)
    later = pd.DatetimeIndex([week[0], pd.Timestamp("2020-03-29 12:00", tz="Europe/Paris")])
    assert scale(later)[0] == decimal_years(week)[0]


@pytest.mark.parametrize("freq", ["1us", "100us"])
def test_dates_closer_than_decimal_years_resolve_are_refused(freq):
    times = pd.date_range("2020-06-01 12:00", periods=60, freq=freq)
    with pytest.raises(ValueError, match=r"seconds since the first date") as err:
        find_jumps(times, STEP, draws=50, chains=2)
    assert re.search(r"apart", str(err.value))


def test_millisecond_dates_are_read_and_written_to_the_millisecond():
    times = pd.date_range("2020-06-01 12:00", periods=60, freq="500ms")
    post = find_jumps(times, STEP, draws=50, chains=2)
    assert post.change_points == [30]
    assert "between 2020-06-01 12:00:14.500 and 2020-06-01 12:00:15.000" in post.summary()
    scale = date_scale(times)
    assert date_labels(scale, decimal_years(times[:2]), decimal_years(times)) == [
        "2020-06-01 12:00:00.000",
        "2020-06-01 12:00:00.500",
    ]


def test_command_refuses_dates_closer_than_decimal_years_resolve(capsys, tmp_path):
    times = pd.date_range("2020-06-01 12:00", periods=60, freq="us")
    data = write_csv(tmp_path, [t.isoformat() for t in times])
    status, out, err = run_cli(capsys, data, "--x", "t", "--y", "v", "--plot", tmp_path / "f")
    assert status == 2
    assert out == ""
    assert err.splitlines()[-1].startswith("pymc-vsk detect-jumps: error: ")
    assert "seconds since the first date" in err


# -- output paths -----------------------------------------------------------------------------
def test_command_does_not_overwrite_its_input_with_the_json(capsys, tmp_path, monkeypatch):
    data = write_csv(tmp_path, [str(1950 + k) for k in range(60)])
    before = data.read_text()
    monkeypatch.chdir(tmp_path)
    for answer in (data, "./data.csv"):
        status, out, err = run_cli(capsys, data, "--x", "t", "--y", "v", "--json", answer)
        assert status == 2
        assert out == ""
        assert "is the input file" in err.splitlines()[-1]
    assert data.read_text() == before
    assert not (tmp_path / "data-jumps.png").exists()


def test_command_refuses_one_path_for_the_json_and_the_figure(capsys, tmp_path):
    data = write_csv(tmp_path, [str(1950 + k) for k in range(60)])
    both = tmp_path / "out.png"
    status, out, err = run_cli(capsys, data, "--x", "t", "--y", "v", "--json", both, "--plot", both)
    assert status == 2
    assert out == ""
    assert "is also the figure's file" in err.splitlines()[-1]
    assert not both.exists()


def test_command_refuses_a_dash_for_the_json(capsys, tmp_path, monkeypatch):
    """``--json -`` wrote a file named ``-`` in the current directory."""
    data = write_csv(tmp_path, [str(1950 + k) for k in range(60)])
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["detect-jumps", str(data), "--x", "t", "--y", "v", "--json", "-"])
    assert exit_.value.code == 2
    assert "argument --json: '-' is not standard output here" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv"]


def test_pandas_missing_values_are_named_as_such():
    """pandas' nullable arrays with pd.NA were refused as "a masked array ... whose masks are
    not read", wording a pandas user does not meet."""
    x = np.arange(40.0)
    y = pd.array(np.r_[np.zeros(20), np.ones(20)], dtype="Float64")
    y[7] = pd.NA
    with pytest.raises(ValueError, match=r"y holds missing values \(pd\.NA, first at position 7\)"):
        find_jumps(x, y)
    with pytest.raises(ValueError, match=r"dropna"):
        find_jumps(pd.Series(x, dtype="Float64").where(x != 3).array, np.zeros(40))
