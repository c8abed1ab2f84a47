"""A series: the same survey run again and again, each run a wave (a `Survey` with `series` and `wave`).

A series may remember each respondent's randomization across its waves (`remembered`, on by default): the
respondent's browser keeps a permanent randomized response per question and true answer and sends a fresh
randomization of it in every wave (`ldp.mechanisms.remembered`), so repeating an unchanged answer reveals no more.

A series has one stable link, /w/<slug>/, that opens its current wave (`surveys.collection.waves.current`).
A new wave's series takes its slug from the first wave's slug (as guessable as the waves' own links, which are made
from it), never from the title: a title may be guessed where an admin chose a slug nobody can guess. Only a series
made in code without a slug (the tests') falls back to its title.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _

from .frozen import FrozenMechanism


class Series(models.Model):
    title = models.CharField(max_length=200)
    slug = models.SlugField(
        unique=True, help_text=_("The series' own link, /w/<slug>/, always opens its current wave: the newest wave "
                                 "accepting responses. Anyone with it reaches that wave, whatever the wave's own "
                                 "link; if the questions are sensitive, choose a slug nobody can guess."))
    remembered = models.BooleanField(
        _("remembered randomization"), default=True,
        help_text=_("Each respondent's browser remembers a permanent randomized answer per question and answer, and "
                    "every wave sends a fresh randomization of it: answering the same in every wave reveals no more "
                    "than the permanent layer. Off: every wave is randomized afresh and cannot be linked by its "
                    "pattern, but each wave adds to what a repeated respondent reveals."))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = _("series")

    def __str__(self) -> str:
        return self.title

    def save(self, *args: Any, **kwargs: Any) -> None:
        # How reports were made is frozen once a wave has any: they are debiased through it.
        old = Series.objects.filter(pk=self.pk).first() if self.pk is not None else None
        if old is not None and old.remembered != self.remembered and self.has_reports():
            raise FrozenMechanism("A wave of this series has reports; remembered randomization can no longer change.")
        if not self.slug:  # made in code without one (the admin asks for it, a new wave gives its own)
            self.slug = free_slug(slugify(self.title) or "series")
        super().save(*args, **kwargs)

    def has_reports(self) -> bool:
        return self.pk is not None and self.waves.filter(responses__isnull=False).exists()


def free_slug(wanted: str) -> str:
    """`wanted` (a slug), or with -2, -3, ... when another series has it, shortened to fit."""
    length = Series._meta.get_field("slug").max_length or 50
    found, extra = wanted[:length], 1
    while Series.objects.filter(slug=found).exists():
        extra += 1
        found = f"{wanted[:length - len(str(extra)) - 1]}-{extra}"
    return found
