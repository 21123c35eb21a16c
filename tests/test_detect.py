"""``pymc-vsk detect-jumps``: clear errors for bad CSV files; a small run finds the jump."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from benchmarks.jump_seeds import monthly
from pymc_vsk.cli import BROKEN_PIPE, main
from pymc_vsk.jumps.cli import NOT_CONVERGED, InputError, default_location_range, read_xy
from tests.conftest import seed

#: The VSK GP with one random jump, by NUTS (the options --lower/--upper apply to).
NUTS = ("--method", "smooth", "--jumps", "1")
GOOD = "t,v,note\n0.3,1.5,a\n0.1,1.0,b\n0.2,1.2,c\n0.6,3.0,d\n0.5,2.9,e\n0.4,3.1,f\n"


def write(tmp_path, text: str, name: str = "data.csv", encoding: str = "utf-8"):
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["detect-jumps", *map(str, argv)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_input_error(capsys, argv, *patterns: str) -> str:
    """The CLI exits with status 2, prints nothing on stdout and, last on stderr, the error."""
    status, out, err = run_cli(capsys, *argv)
    assert status == 2
    assert out == ""
    err = err.splitlines()[-1]
    assert err.startswith("pymc-vsk detect-jumps: error: ")
    for pattern in patterns:
        assert re.search(pattern, err), (pattern, err)
    return err


# -- reading ----------------------------------------------------------------------------------
def test_read_xy_sorts_by_x_and_ignores_other_columns_blank_lines_and_a_bom(tmp_path):
    text = "\ufeff" + GOOD.replace("0.6,3.0,d\n", "\n0.6,3.0,d\n\n")
    x, y = read_xy(write(tmp_path, text), "t", "v")
    np.testing.assert_array_equal(x, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    np.testing.assert_array_equal(y, [1.0, 1.2, 1.5, 3.1, 2.9, 3.0])


def test_read_xy_keeps_repeated_x_values_in_file_order(tmp_path):
    x, y = read_xy(write(tmp_path, "x,y\n2,5\n1,1\n2,6\n1,2\n3,7\n0,0\n"), "x", "y")
    np.testing.assert_array_equal(x, [0, 1, 1, 2, 2, 3])
    np.testing.assert_array_equal(y, [0, 1, 2, 5, 6, 7])


def test_default_location_range_is_the_inner_80_percent():
    assert default_location_range(np.array([3.0, 1.0, 11.0])) == pytest.approx((2.0, 10.0))


# -- errors through the command line ------------------------------------------------------------
def test_missing_file(tmp_path, capsys):
    assert_input_error(
        capsys, [tmp_path / "nope.csv", "--x", "t", "--y", "v"], r"nope\.csv: no such file"
    )


def test_directory_instead_of_a_file(tmp_path, capsys):
    assert_input_error(capsys, [tmp_path, "--x", "t", "--y", "v"], "is a directory")


@pytest.mark.parametrize("text", ["", "\n\n  \n"], ids=["empty", "blank-lines"])
def test_empty_file(tmp_path, capsys, text):
    assert_input_error(
        capsys, [write(tmp_path, text), "--x", "t", "--y", "v"], "is empty", "header row"
    )


def test_file_that_is_not_text(tmp_path, capsys):
    path = tmp_path / "data.csv"
    path.write_bytes(b"t,v\n\xff\xfe\x00\x01,2\n")
    assert_input_error(
        capsys, [path, "--x", "t", "--y", "v"], "not a text file", "export the data as CSV"
    )
    path.write_bytes(b"t,v\n\x81\x8d,2\n")  # bytes that neither UTF-8 nor Windows-1252 use
    assert_input_error(
        capsys, [path, "--x", "t", "--y", "v"], "not text in UTF-8, UTF-16 or Windows-1252"
    )


def test_windows_1252_and_utf_16_files_are_read_as_utf_8_ones(tmp_path, capsys):
    """Spreadsheets on Windows save CSV in Windows-1252 (or UTF-16 as 'Unicode text'); the
    values are those of the UTF-8 file, and a notice names the encoding when it is guessed."""
    text = GOOD.replace("t,v,note", "t,v,Précision °C")
    expected = read_xy(write(tmp_path, text), "t", "v")
    got = read_xy(write(tmp_path, text, "w.csv", encoding="cp1252"), "t", "v")
    assert "read as Windows-1252" in capsys.readouterr().err
    np.testing.assert_array_equal(got, expected)
    got = read_xy(write(tmp_path, text.replace(",", "\t"), "u.txt", encoding="utf-16"), "t", "v")
    np.testing.assert_array_equal(got, expected)


def test_an_excel_sep_line_names_the_separator(tmp_path):
    expected = read_xy(write(tmp_path, GOOD), "t", "v")
    got = read_xy(write(tmp_path, "sep=;\n" + GOOD.replace(",", ";"), "x.csv"), "t", "v")
    np.testing.assert_array_equal(got, expected)


def test_no_header_row(tmp_path, capsys):
    assert_input_error(
        capsys,
        [write(tmp_path, "0.1,1.0\n0.2,1.2\n"), "--x", "t", "--y", "v"],
        r"first row \(line 1\) holds numbers, not column names",
        "add a header row",
    )


@pytest.mark.parametrize(
    "row, fields", [("0.7,3.3\n", 2), ("0.7,3.3,g,extra\n", 4)], ids=["short", "long"]
)
def test_ragged_row_names_its_line(tmp_path, capsys, row, fields):
    text = GOOD.replace("0.5,2.9,e\n", row)
    assert_input_error(
        capsys,
        [write(tmp_path, text), "--x", "t", "--y", "v"],
        rf"line 6: {fields} field\(s\) but the header has 3",
        "missing or extra commas",
    )


def test_malformed_quoting_names_its_line(tmp_path, capsys):
    text = GOOD.replace("0.2,1.2,c\n", '0.2,"1.2"x,c\n')
    assert_input_error(
        capsys,
        [write(tmp_path, text), "--x", "t", "--y", "v"],
        r"line 4: malformed CSV",
        "quoting",
    )


def test_unclosed_quote_names_its_line(tmp_path, capsys):
    text = GOOD.replace("0.5,2.9,e\n", '0.5,"2.9,e\n')
    assert_input_error(
        capsys, [write(tmp_path, text), "--x", "t", "--y", "v"], r"line 6: malformed CSV", "quoting"
    )


def test_lines_count_blank_lines_and_quoted_line_breaks(tmp_path, capsys):
    """Line numbers are those of the file: blank lines and line breaks inside quotes count."""
    text = GOOD.replace("0.1,1.0,b\n", '\n0.1,1.0,"b\nb"\n').replace("0.4,3.1,f", "0.4,x,f")
    assert_input_error(
        capsys, [write(tmp_path, text), "--x", "t", "--y", "v"], r"line 9, column 'v': 'x'"
    )


def test_missing_column_lists_the_available_ones(tmp_path, capsys):
    assert_input_error(
        capsys,
        [write(tmp_path, GOOD), "--x", "t", "--y", "value"],
        r"no column 'value' \(--y\); its columns are: 't', 'v', 'note'",
    )


def test_missing_column_suggests_a_close_name(tmp_path, capsys):
    assert_input_error(
        capsys, [write(tmp_path, GOOD), "--x", "T", "--y", "v"], r"Did you mean 't'\?"
    )


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_files_separated_by_tabs_semicolons_or_bars_read_as_with_commas(tmp_path, sep):
    """The separator is the header line's; the values are those of the comma-separated file."""
    expected = read_xy(write(tmp_path, GOOD, "commas.csv"), "t", "v")
    got = read_xy(write(tmp_path, GOOD.replace(",", sep), "other.csv"), "t", "v")
    np.testing.assert_array_equal(got, expected)


def test_files_separated_by_blanks_read_as_with_commas(tmp_path):
    """Aligned columns (any run of spaces, a tab here and there), a quoted value with blanks,
    and R's write.table (quoted names, row names without a header field)."""
    expected = read_xy(write(tmp_path, GOOD, "commas.csv"), "t", "v")
    aligned = (
        '   t      v   note\n  0.3   1.5   a\n\n  0.1   1.0   b\n  0.2   1.2\t"c and d"\n'
        "  0.6   3.0   d\n  0.5   2.9   e\n  0.4   3.1   f\n"
    )
    np.testing.assert_array_equal(read_xy(write(tmp_path, aligned, "a.txt"), "t", "v"), expected)
    rows = GOOD.splitlines()
    r_table = " ".join(f'"{name}"' for name in rows[0].split(",")) + "\n"
    r_table += "".join(f'"{i}" ' + row.replace(",", " ") + "\n" for i, row in enumerate(rows[1:]))
    np.testing.assert_array_equal(read_xy(write(tmp_path, r_table, "r.txt"), "t", "v"), expected)
    with_commas = "t v\n0,3 1,5\n0,1 1,0\n0,2 1,2\n0,6 3\n0,5 2,9\n0,4 3,1\n"
    np.testing.assert_array_equal(
        read_xy(write(tmp_path, with_commas, "c.txt"), "t", "v"), expected
    )


@pytest.mark.parametrize("sep", [";", "\t", ","])
@pytest.mark.parametrize("mark", [",", "."])
def test_numbers_grouped_by_thousands_beside_whole_numbers_are_refused(tmp_path, sep, mark):
    """997 then 1,000 (or 1.000): read as decimals the series would fall a thousandfold, so
    the reader names the cell and its two readings instead of guessing."""
    flows = [990, 997, 1003, 1010, 1021, 1034]
    cells = [f'"{v // 1000}{mark}{v % 1000:03d}"' if v >= 1000 else str(v) for v in flows]
    text = f"year{sep}flow\n" + "".join(f"{1900 + i}{sep}{c}\n" for i, c in enumerate(cells))
    with pytest.raises(InputError) as info:
        read_xy(write(tmp_path, text), "year", "flow")
    assert re.search(
        rf"line 4, column 'flow': '1\{mark}003' reads as 1003 with a thousands separator or as "
        r"1\.003 with three decimals, and the column also holds whole numbers such as '990' "
        r"\(line 2\); write the numbers without thousands separators",
        str(info.value),
    ), str(info.value)
    # read as decimals they fit the whole numbers: decimals
    if sep != "," or mark == ".":
        cells = [v.replace(".", mark) for v in ("995.125", "1120", "1003", "998")]
        near = f"year{sep}flow\n" + "".join(f"{1900 + i}{sep}{v}\n" for i, v in enumerate(cells))
        _, y = read_xy(write(tmp_path, near), "year", "flow", min_rows=4)
        np.testing.assert_allclose(y, [995.125, 1120, 1003, 998])
    # three decimals throughout, or beside other decimals, are decimals
    decimals = text.replace("990", "0,990" if mark == "," else "0.990").replace("997", "0,5")
    if sep != "," or mark == ".":
        _, y = read_xy(write(tmp_path, decimals.replace("0,5", "0" + mark + "5")), "year", "flow")
        np.testing.assert_allclose(y, [0.99, 0.5, 1.003, 1.01, 1.021, 1.034])


def test_iso_dates_whose_utc_offsets_differ_are_read_in_utc(tmp_path):
    """Hourly readings across the change to summer time (+01:00, then +02:00) are evenly
    spaced in UTC: the hour that the clocks skip is no gap."""
    stamps = pd.date_range("2020-03-28 22:00", periods=8, freq="h", tz="UTC")
    local = stamps.tz_convert("Europe/Berlin")
    text = "time,load\n" + "".join(f"{t.isoformat()},{k}\n" for k, t in enumerate(local))
    assert "+01:00" in text and "+02:00" in text
    x, _ = read_xy(write(tmp_path, text), "time", "load")
    np.testing.assert_allclose(np.diff(x) * 365.25 * 24, 1.0)


def test_comment_lines_are_skipped_and_lines_keep_their_numbers(tmp_path):
    """Lines starting with # (a data centre's preamble, a note between rows) are skipped, in
    files separated by commas or by blanks; a first field #N/A is a missing value, not a
    comment; messages give the file's own line numbers."""
    expected = read_xy(write(tmp_path, GOOD, "commas.csv"), "t", "v")
    preamble = "# Station 7, monthly means\n  # units: m\n#\n"
    rows = GOOD.splitlines(keepends=True)
    note = "# instrument replaced\n"
    commented = preamble + rows[0] + "".join(rows[1:4]) + note + "".join(rows[4:])
    got = read_xy(write(tmp_path, commented, "c.csv"), "t", "v")
    np.testing.assert_array_equal(got, expected)
    got = read_xy(write(tmp_path, commented.replace(",", " "), "c.txt"), "t", "v")
    np.testing.assert_array_equal(got, expected)
    na_first = (
        "v,t\n" + "".join(f"{v},{t}\n" for t, v in zip(*expected, strict=True)) + "#N/A,0.7\n"
    )
    np.testing.assert_array_equal(read_xy(write(tmp_path, na_first, "n.csv"), "t", "v"), expected)
    with pytest.raises(InputError, match=r"line 9, column 'v': 'x' is not a number"):
        read_xy(write(tmp_path, commented.replace("0.6,3.0", "0.6,x"), "bad.csv"), "t", "v")


def test_a_ragged_row_of_a_file_separated_by_semicolons_names_them(tmp_path, capsys):
    text = GOOD.replace("0.5,2.9,e\n", "0.5,2.9\n").replace(",", ";")
    assert_input_error(
        capsys,
        [write(tmp_path, text), "--x", "t", "--y", "v"],
        r"line 6: 2 field\(s\) but the header has 3",
        "missing or extra semicolons, and quote values that contain semicolons",
    )


def test_a_decimal_comma_reads_as_a_point_where_commas_do_not_separate(tmp_path):
    """Spreadsheets in many languages write 3,5 with semicolons between the fields; a value
    that is still not a number is named as the file has it."""
    text = 't;v;note\n0,3;1,5;"a, b"\n0,1;1,0;b\n0,2;-1,25e1;c\n0,6;3;d\n0,5;,9;e\n0,4;3,1;f\n'
    x, y = read_xy(write(tmp_path, text), "t", "v")
    np.testing.assert_array_equal(x, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    np.testing.assert_array_equal(y, [1.0, -12.5, 1.5, 3.1, 0.9, 3.0])
    with pytest.raises(InputError, match=r"line 3, column 'v': '1\.000,5' is not a number"):
        read_xy(write(tmp_path, text.replace("1,0;b", "1.000,5;b")), "t", "v")
    # in a comma-separated file a comma always separates: "1,5" quoted is not a number
    with pytest.raises(InputError, match=r"line 2, column 'v': '1,5' is not a number"):
        read_xy(write(tmp_path, 't,v\n0,"1,5"\n1,2\n2,3\n3,4\n4,5\n5,6\n'), "t", "v")


def test_a_header_of_one_field_gets_a_hint(tmp_path, capsys):
    """Fields separated by something else (here colons) read as one column: say how to
    separate them."""
    text = GOOD.replace(",", ":")
    err = assert_input_error(
        capsys,
        [write(tmp_path, text), "--x", "t", "--y", "v"],
        "its columns are: 't:v:note'",
        "separate the columns with commas",
    )
    assert "Did you mean" not in err


def test_duplicate_column_name(tmp_path, capsys):
    text = GOOD.replace("t,v,note", "t,v,v")
    assert_input_error(
        capsys,
        [write(tmp_path, text), "--x", "t", "--y", "v"],
        "'v' appears 2 times.*so that --y names one column",
    )


def test_same_column_for_x_and_y(tmp_path, capsys):
    assert_input_error(capsys, [write(tmp_path, GOOD), "--x", "t", "--y", "t"], "same column")


@pytest.mark.parametrize(
    "cell, pattern",
    [
        ("abc", r"'abc' is not a number"),
        ("1,5", None),  # an unquoted decimal comma makes the row ragged
        ('"1,5"', r"'1,5' is not a number"),
        ("3.1 m", r"'3.1 m' is not a number"),
        ("", "an empty cell"),
        ("NA", "the missing-value marker 'NA'"),
        ("nan", "the missing-value marker 'nan'"),
        ("#N/A", "the missing-value marker '#N/A'"),  # spreadsheets
        (".", "the missing-value marker '.'"),  # SAS, Stata
        ("inf", "'inf' is not finite"),
    ],
)
def test_bad_value_names_line_and_column(tmp_path, capsys, cell, pattern):
    text = GOOD.replace("0.4,3.1,f", f"0.4,{cell},f")
    patterns = [r"line 7, column 'v'", pattern] if pattern else [r"line 7: 4 field\(s\)"]
    missing = cell in ("", "NA", "nan", "#N/A", ".")
    # a missing y leaves its row out (next test); a missing x is an error, as is any y
    # without drop_missing
    argv = [write(tmp_path, text), "--x", "v", "--y", "t"] if missing else None
    if missing:
        assert_input_error(capsys, argv, r"line 7, column 'v'", pattern)
        with pytest.raises(InputError, match=pattern):
            read_xy(write(tmp_path, text), "t", "v", drop_missing=False)
    else:
        assert_input_error(capsys, [write(tmp_path, text), "--x", "t", "--y", "v"], *patterns)


def test_iso_dates_are_read_as_decimal_years_evenly_spaced(tmp_path, capsys):
    """Month-end dates step by 1/12 whatever the month's length; daily dates by one day, leap
    days included; a notice says how x was read."""
    months = pd.date_range("1999-11-30", periods=8, freq="ME")
    text = "when,v\n" + "".join(f"{d:%Y-%m-%d},{i % 3}\n" for i, d in enumerate(months))
    x, _ = read_xy(write(tmp_path, text), "when", "v")
    np.testing.assert_allclose(x, 1999 + 10 / 12 + np.arange(8) / 12, rtol=0, atol=1e-12)
    assert "column 'when' read as dates; x is in decimal years (1999-11-30 is 1999.8333)" in (
        capsys.readouterr().err
    )
    days = pd.date_range("2004-02-26", periods=7, freq="D")  # 29 February included
    text = "when,v\n" + "".join(f"{d:%Y-%m-%dT%H:%M},{i}\n" for i, d in enumerate(days))
    x, _ = read_xy(write(tmp_path, text), "when", "v")
    np.testing.assert_allclose(np.diff(x), 1 / 365.25, rtol=1e-9)
    # ISO dates only, and not mixed with numbers: the error says what is read
    text = "when,v\n" + "".join(f"{d:%d/%m/%Y},{i}\n" for i, d in enumerate(days))
    assert_input_error(
        capsys,
        [write(tmp_path, text), "--x", "when", "--y", "v"],
        r"'26/02/2004' is not a number",
        "ISO 8601",
    )
    text = "when,v\n2004-02-26,1\n" + "".join(f"{2004 + i},{i}\n" for i in range(6))
    err = assert_input_error(capsys, [write(tmp_path, text), "--x", "when", "--y", "v"])
    assert "'2004-02-26' is not a number" in err and "ISO" not in err


def test_monthly_dates_give_the_answer_of_decimal_years(tmp_path, capsys):
    """A monthly series with a season and a step, its x as month-end dates or as numbers."""
    x, y, c = monthly(np.random.default_rng(seed(48)))
    dates = pd.date_range("1990-01-31", periods=x.size, freq="ME")
    answers = []
    for column in ([f"{d:%Y-%m-%d}" for d in dates], [repr(float(v)) for v in x]):
        path = write(
            tmp_path, "t,v\n" + "".join(f"{a},{b}\n" for a, b in zip(column, y, strict=True))
        )
        out = tmp_path / "out.json"
        options = ("--json", out, "--draws", 500, "--chains", 2, "--plot", tmp_path / "fig.png")
        status, _, _ = run_cli(capsys, path, "--x", "t", "--y", "v", *options)
        assert status == 0
        answers.append(json.loads(out.read_text()))
    dated, numbered = answers
    assert dated["n_jumps"] == numbered["n_jumps"] == 1
    for key in ("p_n_jumps", "jumps"):
        pd.testing.assert_frame_equal(
            pd.json_normalize(dated[key]), pd.json_normalize(numbered[key]), rtol=1e-6
        )
    assert abs(answers[0]["jumps"][0]["location"] - (x[c] - 1 / 24)) <= 3 / 12


def test_rows_without_a_y_are_left_out_with_a_notice(tmp_path, capsys):
    text = GOOD.replace("0.4,3.1,f", "0.4,NA,f").replace("0.1,1.0,b", "0.1,,b")
    x, y = read_xy(write(tmp_path, text + "0.7,3.2,g\n0.8,2.8,h\n"), "t", "v")
    np.testing.assert_array_equal(x, [0.2, 0.3, 0.5, 0.6, 0.7, 0.8])
    np.testing.assert_array_equal(y, [1.2, 1.5, 2.9, 3.0, 3.2, 2.8])
    err = capsys.readouterr().err
    assert "left out 2 row(s) without a value in column 'v' (line(s) 3, 7)" in err
    with pytest.raises(InputError, match=r"has 4 data row\(s\) with a value; at least 6"):
        read_xy(write(tmp_path, text), "t", "v")


def test_a_blank_date_is_named_as_an_empty_cell_on_its_line(tmp_path, capsys):
    days = pd.date_range("1990-01-31", periods=12, freq="ME").strftime("%Y-%m-%d").tolist()
    days[4] = ""
    text = "date,v\n" + "".join(f"{d},{i % 4}\n" for i, d in enumerate(days))
    assert_input_error(
        capsys,
        [write(tmp_path, text), "--x", "date", "--y", "v"],
        r"line 6, column 'date': an empty cell; delete the row or fill in the value",
    )


def test_too_few_rows_for_a_jump_get_a_notice(tmp_path, capsys):
    text = "t,v\n" + "".join(f"{i},{v}\n" for i, v in enumerate([1.0, 1.2, 0.9, 5.0, 5.1]))
    status, out, err = run_cli(
        capsys, write(tmp_path, text), "--x", "t", "--y", "v", "--plot", tmp_path / "f.png"
    )
    assert status in (0, NOT_CONVERGED) and "number of jumps: 0" in out
    assert "5 observations leave no room for a jump (3 are needed on each side" in err


def test_output_paths_that_cannot_be_written_are_refused_before_any_work(tmp_path, capsys):
    data = write(tmp_path, GOOD)
    argv = [data, "--x", "t", "--y", "v"]
    assert_input_error(capsys, [*argv, "--json", tmp_path], "is a directory; give a file name")
    assert_input_error(
        capsys, [*argv, "--json", data / "out.json"], r"data.csv is a file, not a directory"
    )
    assert_input_error(
        capsys, [*argv, "--plot", tmp_path / "f.xyz"], r"matplotlib cannot save '.xyz' figures"
    )
    assert not (tmp_path / "f.xyz").exists()


def test_an_output_path_ending_in_a_separator_names_a_directory_and_is_refused(
    tmp_path, capsys, monkeypatch
):
    """``--plot out/`` was saved as ``out.png`` and reported as ``saved out``."""
    data = write(tmp_path, GOOD)
    monkeypatch.chdir(tmp_path)
    for flag, example in (("--plot", "figure.png"), ("--json", "answer.json")):
        with pytest.raises(SystemExit) as exit_:
            main(["detect-jumps", str(data), "--x", "t", "--y", "v", flag, "out/"])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert f"argument {flag}: 'out/' names a directory; give a file name in it, such as " in err
        assert f"out/{example}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv"]


def test_a_figure_without_a_suffix_is_saved_as_png_in_new_directories(tmp_path, capsys):
    """``--plot fig`` is saved as ``fig.png``, and the command names that file."""
    data = write(tmp_path, GOOD)
    plot = tmp_path / "new" / "deep" / "fig"
    argv = [data, "--x", "t", "--y", "v", "--plot", plot, "--draws", "100", "--chains", "2"]
    status, out, _ = run_cli(capsys, *argv)
    assert status in (0, NOT_CONVERGED)
    assert f"saved {plot}.png" in out.splitlines()
    assert (tmp_path / "new" / "deep" / "fig.png").read_bytes().startswith(b"\x89PNG")
    assert not plot.exists()


def test_a_refused_run_leaves_no_new_directories(tmp_path, capsys):
    """The check of the output paths creates their directories for a trial only: a run
    refused for its input leaves none behind."""
    data = write(tmp_path, "t,v\n1,2\n")
    argv = [data, "--x", "t", "--y", "v", "--json", tmp_path / "j" / "a.json"]
    plot = tmp_path / "new" / "deep" / "fig.png"
    assert_input_error(capsys, [*argv, "--plot", plot], r"data row\(s\) with a value; at least")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv"]


def test_the_answer_is_written_when_the_default_figure_cannot_be(tmp_path, capsys, monkeypatch):
    """Where the figure's default place (the current directory) cannot take it, the command
    says so and writes the answer all the same."""
    data = write(tmp_path, GOOD)
    here = tmp_path / "cwd"
    (here / "data-jumps.png").mkdir(parents=True)  # a directory where the figure would go
    monkeypatch.chdir(here)
    answer = tmp_path / "out.json"
    status, out, err = run_cli(
        capsys, data, "--x", "t", "--y", "v", "--json", answer, "--draws", "100", "--chains", "2"
    )
    assert status in (0, NOT_CONVERGED)
    assert "the figure is not saved (give --plot PATH" in err and "saved" in out
    assert json.loads(answer.read_text())["n_jumps"] >= 0


def test_too_few_rows_for_the_number_of_jumps(tmp_path, capsys):
    path = write(tmp_path, GOOD)
    assert_input_error(
        capsys,
        [path, "--x", "t", "--y", "v", "--jumps", "2"],
        r"has 6 data row\(s\) with a value; at least 9 are needed",
    )
    assert_input_error(
        capsys, [write(tmp_path, "t,v\n", "h.csv"), "--x", "t", "--y", "v"], "0 data"
    )


def test_constant_x(tmp_path, capsys):
    text = "t,v\n" + "".join(f"1.0,{i}\n" for i in range(8))
    assert_input_error(
        capsys, [write(tmp_path, text), "--x", "t", "--y", "v"], "single distinct value"
    )


def test_location_range_without_nodes_or_reversed(tmp_path, capsys):
    path = write(tmp_path, GOOD)
    assert_input_error(
        capsys,
        [path, "--x", "t", "--y", "v", "--lower", "0.9", "--upper", "0.2", *NUTS],
        "--lower must be below --upper",
    )
    assert_input_error(
        capsys,
        [path, "--x", "t", "--y", "v", "--lower", "0.31", "--upper", "0.39", *NUTS],
        r"0 distinct x value\(s\) lie inside the location range",
        "widen",
    )


def test_marginal_method_takes_one_jump(tmp_path, capsys):
    text = "t,v\n" + "".join(f"{i},{i % 3}\n" for i in range(12))
    assert_input_error(
        capsys,
        [write(tmp_path, text), "--x", "t", "--y", "v", "--jumps", "2", "--method", "marginal"],
        "--method marginal handles one jump",
    )


@pytest.mark.parametrize(
    "flag, value",
    [
        ("--draws", "0"),
        ("--jumps", "two"),
        ("--lower", "nan"),
        ("--method", "x"),
        ("--chains", "1"),  # r̂ compares chains
        ("--seed", "-1"),
    ],
)
def test_bad_arguments_are_rejected_by_argparse(tmp_path, capsys, flag, value):
    with pytest.raises(SystemExit) as exit_info:
        main(["detect-jumps", str(write(tmp_path, GOOD)), "--x", "t", "--y", "v", flag, value])
    assert exit_info.value.code == 2
    assert flag in capsys.readouterr().err


def test_console_script_reports_errors_with_exit_status_2(tmp_path):
    """The installed entry point (``python -m pymc_vsk``) prints the error on stderr."""
    argv = ["detect-jumps", str(tmp_path / "x.csv"), "--x", "a", "--y", "b"]
    result = subprocess.run(
        [sys.executable, "-m", "pymc_vsk", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
        check=False,
    )
    assert result.returncode == 2
    assert "x.csv: no such file" in result.stderr


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs jax installed")
def test_drawing_the_figure_does_not_load_jax(tmp_path):
    """With jax installed, arviz registers it as a lazy module, and matplotlib's question "is
    this a jax array?" on every plotted array loaded all of jax: about a second of each run.
    The figure is drawn with the unloaded module out of sight, and put back after. (The
    command's diagnostics import arviz after the model's sums, which would ask too.)"""
    x = np.arange(40.0)
    y = np.where(x < 20, 0.0, 2.0) + 0.3 * np.random.default_rng(3).normal(size=40)
    path = tmp_path / "d.csv"
    pd.DataFrame({"t": x, "v": y}).to_csv(path, index=False)
    script = f"""
import sys
from pymc_vsk.cli import main
code = main(["detect-jumps", {str(path)!r}, "--x", "t", "--y", "v", "--quiet",
             "--draws", "200", "--plot", {str(tmp_path / "d.png")!r}])
print(code, type(sys.modules["jax"]).__name__, "jax._src" in sys.modules)
"""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-3:] == ["0", "_LazyModule", "False"], out.stdout
    assert (tmp_path / "d.png").stat().st_size > 0


def test_a_reader_that_leaves_early_costs_no_traceback_and_no_file(tmp_path):
    """``pymc-vsk detect-jumps ... | head -1``: when stdout's reader has gone, the command
    still writes the JSON and the figure, then stops with the status of a program that
    SIGPIPE ended (141), without a traceback."""
    x = np.arange(40)
    y = np.where(x < 20, 0.0, 3.0) + np.sin(x)
    data = tmp_path / "d.csv"
    pd.DataFrame({"t": x, "v": y}).to_csv(data, index=False)
    argv = ["detect-jumps", str(data), "--x", "t", "--y", "v", "--quiet", "--draws", "200"]
    argv += ["--json", str(tmp_path / "d.json"), "--plot", str(tmp_path / "d.png")]
    child = subprocess.Popen(
        [sys.executable, "-m", "pymc_vsk", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    child.stdout.close()  # gone before the first line
    err = child.stderr.read().decode()
    assert child.wait() == BROKEN_PIPE == 141, err
    assert "Traceback" not in err, err
    assert json.loads((tmp_path / "d.json").read_text())["n_jumps"] == 1
    assert (tmp_path / "d.png").stat().st_size > 0


def test_dated_series_are_summarised_with_their_dates(tmp_path, capsys, monkeypatch):
    """ISO dates in the file: the summary writes each place and interval as dates too, and
    the JSON is that of the decimal years."""
    monkeypatch.chdir(tmp_path)  # the default figures, <csv name>-jumps.png, go here
    months = pd.date_range("2001-01-01", periods=60, freq="MS")
    y = np.where(np.arange(60) < 32, 1.0, 3.0) + 0.4 * np.random.default_rng(1).normal(size=60)
    dated = tmp_path / "dated.csv"
    pd.DataFrame({"month": months.strftime("%Y-%m-%d"), "v": y}).to_csv(dated, index=False)
    years = tmp_path / "years.csv"
    pd.DataFrame({"month": months.year + (months.month - 1) / 12, "v": y}).to_csv(
        years, index=False
    )
    outs, answers = [], []
    for path in (dated, years):
        answer = path.with_suffix(".json")
        argv = ["--x", "month", "--y", "v", "--draws", "200", "--json", answer, "--quiet"]
        code, out, _ = run_cli(capsys, path, *argv)
        assert code == 0
        assert (tmp_path / f"{path.stem}-jumps.png").stat().st_size > 0
        outs.append(out)
        answers.append(json.loads(answer.read_text()))
    jump = "jump 1: at 2003.62 (between 2003-08 and 2003-09), 94% interval [2003.58, 2003.67] "
    assert jump + "(2003-08 to 2003-09)" in outs[0], outs[0]
    assert "(2001-01 to 2005-12, in decimal years)" in outs[0] and "2003-08" not in outs[1]
    assert answers[0] == answers[1]


# -- a successful run ----------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["smooth", pytest.param("marginal", marks=pytest.mark.slow)])
def test_detects_the_jump_in_a_synthetic_csv(tmp_path, capsys, method):
    """A jump of 2 between x = 0.43 and 0.48 against noise 0.1: the credible gaps contain it.

    The 20 other inputs are uniform on [0, 1] outside [0.43, 0.48], so (0.43, 0.48] is the gap
    between nodes that holds the jump. (Replacing the nodes nearest to 0.43 and 0.48 instead
    left another node inside that interval at 5 of 15 seed offsets, and the test then asked for
    the wrong gap.) With these inputs the credible gaps were exactly (0.43, 0.48] at all 15
    offsets. Each run compiles and samples a model (about a minute); the marginal method's run
    is marked slow.
    """
    rng = np.random.default_rng(seed(7))
    n = 22
    u = rng.uniform(0.0, 0.95, n - 2)
    x = np.sort(np.r_[u + 0.05 * (u >= 0.43), 0.43, 0.48])
    y = 0.3 * np.sin(4 * x) + 2.0 * (x > 0.45) + 0.1 * rng.normal(size=n)
    order = rng.permutation(n)  # the file need not be sorted
    rows = "".join(f"{x[i]:.17g},{y[i]:.17g}\n" for i in order)
    path = write(tmp_path, "position,signal\n" + rows)
    plot = tmp_path / "figs" / "jumps.png"
    status, out, err = run_cli(
        capsys,
        path,
        *("--x", "position", "--y", "signal", "--method", method, "--jumps", "1"),
        *("--draws", "150", "--chains", "2", "--seed", seed(3), "--plot", plot),
        *("--json", tmp_path / "answer.json"),
    )
    # 2 × 150 draws cannot reach ESS 400: the run says so (status 3) and still reports
    assert status == 0 or (status == NOT_CONVERGED and "more --draws" in err), err
    # stdout holds the results only: the sampler's progress goes to stderr
    assert out.startswith(f"{n} observations") and "diagnostics:" in out and "r_hat" in out
    answer = json.loads((tmp_path / "answer.json").read_text())
    assert answer["n_jumps"] == 1 and 0.3 < answer["jumps"][0]["location"] < 0.6
    match = re.search(r"jump 1: location: .* credible gaps span \[([-\d.e]+), ([-\d.e]+)\]", out)
    assert match, out
    lo, hi = map(float, match.groups())
    assert lo <= 0.43 and 0.48 <= hi, out  # the true gap (0.43, 0.48] is in the credible set
    assert hi - lo < 0.3, out  # and the set is local
    assert plot.stat().st_size > 0


def test_input_error_is_a_value_error():
    assert issubclass(InputError, ValueError)
