// A randomized payload kept until the server acknowledges it, so that a lost response, a reload
// or a closed tab never leads to randomizing the same true answers a second time.
// What is kept is the payload as it will be sent (randomized reports, the submission key, the
// invitation if any): no true answer but those to direct questions, which are sent as given.
// localStorage, not sessionStorage: the payload must outlive the tab (closing a tab after a failed
// send is common), and it is removed as soon as the server acknowledges it or the respondent
// discards it. Keyed by survey and mechanism version: a payload of an older version would be
// refused anyway.

/** Where the payload of survey `slug` at `version` is kept (remember.js reads it too). */
export const keyOf = (slug, version) => `ldp-survey-pending:${slug}:${version}`;

/** The mark respond.js keeps for a survey this browser answered by its open link (a survey, not only a wave). */
export const sentKey = (slug) => `ldp-survey-sent:${slug}`;
// Any survey it answered, by invitation too (the sent mark is for open links only): a survey may become a wave later,
// whose page then counts it (remember.js, answeredWaves). Kept on every survey's page, so here, not in remember.js.
export const answeredKey = (slug) => `ldp-survey-answered:${slug}`;

export function markSurveyAnswered(storage, slug) {
  storage.setItem(answeredKey(slug), "1");
}

/** Keep `payload` for survey `slug` at `version`; false when storage is unavailable. */
export function keep(slug, version, payload) {
  try {
    window.localStorage.setItem(keyOf(slug, version), JSON.stringify(payload));
    return true;
  } catch {
    return false;
  }
}

/** The payload kept for survey `slug` at `version`, or null. */
export function kept(slug, version) {
  try {
    const text = window.localStorage.getItem(keyOf(slug, version));
    const payload = text === null ? null : JSON.parse(text);
    return payload && payload.version === version && payload.reports ? payload : null;
  } catch {
    return null;
  }
}

/** Forget the payload kept for survey `slug` at `version` (acknowledged, or discarded). */
export function forget(slug, version) {
  try {
    window.localStorage.removeItem(keyOf(slug, version));
  } catch {
    // Nothing was kept.
  }
}
