"""Survey texts as script literals, fuzzed with hypothesis: any text (quotes, backslashes, control
characters, code, any Unicode) read back by R and by Python is that text, so a question can never
end a string early and run as code in a researcher's session. R reads each batch in one process."""

import ast
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from surveys.aggregation.scripts.literals import python_string, r_string

SETTINGS = hypothesis_settings(deadline=None, derandomize=True, database=None, print_blob=False,
                               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# Any character, the troublesome ones often.
TEXT = st.text(st.one_of(st.characters(), st.sampled_from(['"', "'", "\\", "\n", "\r", "\t", "\0", "`", "$", "{",
                                                           "}", "#", "\u2028", "\U0001f600", "é"])), max_size=40)
EXPECTED = {"\0": "\ufffd"}  # the one character neither language holds in a string


def meant(text: str) -> str:
    return "".join(EXPECTED.get(char, char) for char in text)


@pytest.mark.slow
@hypothesis_settings(SETTINGS, max_examples=25)
@given(st.lists(TEXT, min_size=1, max_size=30))
def test_r_reads_every_literal_back_as_its_text(texts):
    program = ("x <- c(" + ", ".join(r_string(text) for text in texts) + ")\n"
               "for (s in x) cat(paste(as.character(charToRaw(enc2utf8(s))), collapse = ''), '\\n', sep = '')\n")
    rscript = shutil.which("Rscript")
    assert rscript, "Rscript not found: `make system-deps` installs Debian's r-base-core"
    done = subprocess.run([rscript, "--vanilla", "-e", program], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [meant(text).encode("utf-8", "surrogatepass").hex() for text in texts]


@pytest.mark.slow
@hypothesis_settings(SETTINGS, max_examples=300)
@given(TEXT)
def test_python_reads_every_literal_back_as_its_text(text):
    literal = python_string(text)
    assert literal.isascii() and "\n" not in literal
    assert ast.literal_eval(literal) == meant(text)


@pytest.mark.slow
@hypothesis_settings(SETTINGS, max_examples=300)
@given(TEXT)
def test_an_r_literal_is_one_line_of_ascii(text):
    literal = r_string(text)
    assert literal.isascii() and "\n" not in literal and "\r" not in literal
