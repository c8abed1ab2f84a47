// What respond.js does on the page of a wave of a series, and only there: the feature "waves" of
// surveys.collection.integrity.FEATURES, an entry of its own that only a wave's page loads (a script tag with its
// integrity, before respond.js's, the modules it imports preloaded with theirs); it leaves its hooks in features.js.
// A question with a permanent layer (config.series.remembered) is answered through remember.js: the permanent
// response, derived from this browser's secret, is randomized afresh; the payload says whether this browser answered
// an earlier wave of the series, nothing more. Before anything is randomized, a remembered question's two figures are
// checked against the page's words, and what the waves this browser answered cost together is worked out (history.js).
import { fill } from "./answers.js";
import { localMillisText, lossAtMost, millisUp, samplerLoss, statedMillis, totalLoss } from "./epsilon.js";
import { provide } from "./features.js";
import { composedLoss, historyLoss } from "./history.js";
import { answeredEarlier, answeredWaves, instantly, markAnswered, permanentResponse, secretOf } from "./remember.js";
import { randomizeAnswer } from "./randomizer.js";

/**
 * The hooks respond.js calls on a wave's page. `storage()` is this browser's storage (a stand-in in memory when it
 * keeps nothing), as respond.js chose it.
 */
export function wavePage(config, storage) {
  const { series, text } = config;
  const remembers = (question) => Boolean(series.remembered && question.remembered);
  const inPageLanguage = (millis) => localMillisText(millis, config.decimalSeparator);
  const show = (id, words) => {
    const line = document.getElementById(id);
    if (!line) return;
    line.textContent = words;
    line.hidden = false;
  };

  // A remembered question's two figures, from the integers: one wave (the layers composed) and every wave with the
  // same answer (the permanent layer), each no more than the page states; this wave's total said in words. Returns
  // the refusal in words, or null.
  function checkRemembered() {
    if (!config.questions.some(remembers)) return null;
    const wave = [];
    for (const question of config.questions) {
      if (!remembers(question)) {
        const loss = samplerLoss(question.sampler);
        if (loss) wave.push(loss);
        continue;
      }
      const [permanent, composed] = [samplerLoss(question.remembered.sampler),
        composedLoss(question.remembered.sampler, question.sampler)];
      if (!lossAtMost(permanent, statedMillis(question.remembered.all_waves_epsilon))
          || !lossAtMost(composed, statedMillis(question.remembered.wave_epsilon))) {
        return fill(text.refuse_remembered, { n: question.order });
      }
      wave.push(composed);
    }
    show("client-waves", fill(text.computed_waves, { wave: inPageLanguage(millisUp(totalLoss(wave))) }));
    return null;
  }

  // What the other waves this browser answered cost with this one, as long as the answers stay the same: only the
  // browser knows which it answered (remember.js); the server describes every wave's samplers (history.js adds them).
  function showHistory() {
    if (!document.getElementById("client-history")) return;
    const answered = answeredWaves(storage(), series.id, config.otherWaves);
    const own = config.questions.map((q) => ({ lineage: q.lineage, sampler: q.sampler,
      permanent: remembers(q) ? q.remembered.sampler : null }));
    const all = inPageLanguage(millisUp(historyLoss([...answered.map((wave) => wave.questions), own])));
    show("client-history", answered.length
      ? fill(text.history_some, { waves: answered.map((wave) => wave.wave).join(", "), all })
      : fill(text.history_none, { all }));
  }

  return {
    remembers,
    /** The wave's figures shown, or a refusal in words (nothing is then randomized). */
    check() {
      const refusal = checkRemembered();
      if (!refusal) showHistory();
      return refusal;
    },
    /** A question's report: a remembered one's permanent response (the same for the same answer in every wave),
     * then this wave's fresh randomization of it; any other randomized afresh. */
    async report(question, answer, nextWord) {
      if (!remembers(question)) return randomizeAnswer(question.sampler, answer, nextWord);
      const secret = secretOf(storage(), (bytes) => window.crypto.getRandomValues(bytes));
      const permanent = await permanentResponse(secret, series.id, question.remembered.lineage, answer,
        question.remembered.sampler);
      return instantly(question.sampler, permanent, nextWord);
    },
    earlierWave: () => answeredEarlier(storage(), series.id, series.wave),
    answered: () => markAnswered(storage(), series.id, series.wave),
  };
}

provide("waves", wavePage);
