import type { AskUserQuestion } from '../card/card-subject.js';

/**
 * Reads a thread reply as an answer to an askUser question: free text as is;
 * for options, a label (any case) or its number, several separated by commas
 * for multi-select (each option once). What matches nothing is passed on unchanged, so the
 * runtime's validation can say what would have fitted.
 */
export function answerFromText(question: AskUserQuestion, text: string): string | string[] {
  const options = question.options;
  if (!options) return text;
  const pick = (part: string): string => {
    const wanted = part.trim();
    const byLabel = options.find((o) => o.label.trim().toLowerCase() === wanted.toLowerCase());
    if (byLabel) return byLabel.label;
    const n = /^\d{1,3}$/.test(wanted) ? options[Number(wanted) - 1] : undefined;
    return n ? n.label : wanted;
  };
  if (question.selectionMode === 'multi_select') {
    const whole = options.find((o) => o.label.trim().toLowerCase() === text.trim().toLowerCase());
    if (whole) return [whole.label];
    // "1, 1" names one option once: the answer lists each option at most once.
    return [...new Set(text.split(/[,\n]/).map((p) => p.trim()).filter((p) => p !== '').map(pick))];
  }
  return pick(text);
}
