"""Yes / no: two fixed answers (No, Yes; report value 1 means yes), randomized by q or by epsilon."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from .base import Kind

# A yes/no and a single-choice question are told apart by their mechanism's yes/no-ness: one sentence for both.
YES_NO_OR_SINGLE_CHOICE = ("Yes/no questions use q-randomized response or the epsilon bit flip; single-choice "
                           "questions use k-ary randomized response, a unary encoding, or no randomization (direct).")


class YesNoKind(Kind):
    name = "yes_no"
    label = gettext_lazy("Yes / no")
    mechanisms = ("qrr", "bitflip")
    words = "yes/no questions use q-randomized response or the epsilon bit flip"
    options = False
    fixed_labels = (gettext_noop("No"), gettext_noop("Yes"))  # English in the plan; the page translates them
    direct_refusal = ("Only single-choice questions can be asked directly (not randomized), for covariates such as "
                      "an age band or a region; a yes/no question is always randomized.")

    def mismatch(self, name: str) -> str | None:
        return None if self.fits(name) else YES_NO_OR_SINGLE_CHOICE

    def no_options(self) -> str:
        return _("Leave the options empty for a yes/no question: its answers are No and Yes.")


KIND = YesNoKind()
