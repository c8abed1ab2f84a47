"""The analysis script's command line (surveys.aggregation.scripts.python.cli), imported directly: its options'
defaults are the header's, a wrong option stops with argparse's message, the estimates print and write."""

import pytest

from surveys.aggregation.scripts.python import cli, header, reading
from tests.aggregation.scripts.python import support


def test_split_takes_comma_separated_keys():
    assert cli.split(" q1, q2,,q3 ") == ["q1", "q2", "q3"]


def test_help_describes_the_script(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "Debiased estimates of every question of a survey, from its randomized reports" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--crosstab", "q1"], "--crosstab takes two keys"),
    (["--waves", "w1"], "--waves takes two folders or more"),
    (["--model", "q1", "--reference", "q2"], "--reference takes KEY=J"),
    (["--interval", "exact", "--weighted"], "weighted figures have Wilson intervals"),
])
def test_wrong_options_stop_with_argparses_message(argv, message, capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(argv)
    assert done.value.code == 2 and message in capsys.readouterr().err


def test_the_estimates_print_and_write_at_the_headers_default_confidence(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(reading, "MECHANISM_VERSION", support.VERSION)
    reports, codebook = support.write(tmp_path, [["1", "2", "5"], ["0", "1", "10"], ["1", "0", "0"]])
    monkeypatch.setitem(header.MEAN_VARIANCE, "q3", 25.0)
    monkeypatch.setattr(cli, "DEFAULT_CONFIDENCE", 0.9)  # the page the script came from: 90%
    cli.main([reports, "--codebook", codebook, "--csv", str(tmp_path / "out.csv")])
    out = capsys.readouterr().out
    assert out.startswith("q1  Question 1?\n  randomized report: do not tabulate as answers; qrr")
    assert "wilson intervals at 0.9\n" in out and (tmp_path / "out.csv").exists()
