// Every sentence the practice mode shows, looked up by key, one catalogue per language. Values are
// filled into {name} placeholders: no sentence is put together from fragments in code, so a
// translation can order its words as its language needs. A key missing from a language falls back
// to English. A sentence that depends on a number is an object { count: 'name', one, other, … }:
// the form is chosen by Intl.PluralRules for the language and the value of params[name].

export const MESSAGES = {
  en: {
    // the mode switch and the panel
    'mode.label': 'Mode',
    'mode.explore': 'Explore',
    'mode.practice': 'Practice',
    'practice.title': 'Practice: predict each number, then check it',
    'practice.intro': 'Work out each blank in the tables below from the numbers around it, type it and press Enter. A cell showing ? would give an answer away: it shows its number once that exercise is answered. Fractions (1/3, ½) and a decimal comma (0,5) are fine.',
    'practice.steps': 'The exercises, in the order of the computation',
    'practice.hiddenCell': 'Hidden until the exercise it would give away is answered',
    'practice.otherTab': "This exercise's blanks are in the tables of head {head}: choose Head {head} above the tables.",
    'status.open': 'to do',
    'status.locked': 'waiting',
    'status.correct': 'correct',
    'status.revealed': 'answer shown',
    'practice.tolerance': 'An answer counts as correct within {relative} % of the true value or {absolute}, whichever is larger.',
    'practice.noHints': 'Hints are switched off for this exercise.',
    'practice.progress': 'Progress',
    'practice.progressText': '{done} of {total} done',
    'practice.score': { count: 'hints', one: '{correct}/{total} correct, {hints} hint', other: '{correct}/{total} correct, {hints} hints' },
    'practice.summary': { count: 'hints', one: '{correct}/{total} correct, {hints} hint', other: '{correct}/{total} correct, {hints} hints' },
    'practice.copySummary': 'Copy summary',
    'practice.copied': 'Summary copied: {summary}',
    'practice.copyFailed': 'Copy the summary by hand: {summary}',
    'practice.tryAnother': 'Try another',
    'practice.integer': 'Whole-number inputs (to work by hand)',
    'practice.another': 'New inputs from seed {seed}. The exercises start again.',
    'practice.locked': 'Answer the exercise above first: this one uses its result.',
    'practice.finished': 'All done: {summary}.',
    'practice.empty': 'There is nothing to practise here: the lab has no result yet.',
    'practice.noCells': 'None of the chosen cells exists in this lab (the sentence or sizes differ from the exercise).',
    'practice.skipped': { count: 'count', one: 'Left out: {count} chosen cell that does not exist in this lab.', other: 'Left out: {count} chosen cells that do not exist in this lab.' },
    'practice.scaleOff': 'Scaling is off in this example (the scores go into softmax as they are), so there is no scaling step to practise.',

    // one exercise
    'exercise.heading': 'Step {number} of {total}: {label}',
    'exercise.check': 'Check',
    'exercise.hint': 'Hint',
    'exercise.nextHint': 'Next hint',
    'exercise.showAnswer': 'Show the answer',
    'exercise.blindSame': 'Here this blank cannot reveal {mistakes}: it gives the true value.',
    'exercise.blindAlike': 'Here these mistakes give the same value and cannot be told apart: {pairs}.',
    'exercise.blindPair': '{mistake} and {other}',
    'verdict.correct': 'Correct. The value is {value}.',
    'verdict.notQuite': 'Not quite.',
    'verdict.notQuiteHints': 'Not quite. Ask for a hint if you are stuck.',
    'verdict.mistake': 'Not quite: {mistake}',
    'verdict.revealed': 'The answer is {value}.',
    'verdict.rowCorrect': 'Correct: every weight of the row. The weights are {value}.',
    'verdict.rowRevealed': 'The weights are {value}.',
    'verdict.rowNotQuite': 'Not quite: {right} of {total} weights are right.',
    'verdict.rowNotQuiteHints': 'Not quite: {right} of {total} weights are right. Ask for a hint if you are stuck.',
    'verdict.rowMistake': 'Not quite ({right} of {total} right): {mistake}',
    'verdict.blankFormat': '{blank}: {problem}',
    'hint.level': 'Hint {level} of 3',
    'hint.sources': 'It comes from the highlighted cells: {sources}.',
    'hint.noMoreHints': 'That was the last hint.',

    // what a blank is called (its accessible name)
    'label.q': "q of '{query}', column {col}, head {head}",
    'label.scores': "score of '{query}' with '{key}', head {head}",
    'label.scaled': "scaled score of '{query}' with '{key}', head {head}",
    'label.weights': "attention weight of '{query}' on '{key}', head {head}",
    'label.softmax': "softmax of the row of '{query}' (every weight), head {head}",
    'label.z': "z of '{query}', column {col}, head {head}",
    'label.concat': "concatenation of '{query}', column {col}",
    'label.output': "output of '{query}', column {col}",

    // the sources named in hint 1
    'source.xRow': "row '{token}' of X",
    'source.wColumn': 'column {col} of {matrix}',
    'source.qRow': "row '{token}' of Q",
    'source.kRow': "row '{token}' of K (column '{token}' of Kᵀ)",
    'source.kAll': 'the keys K',
    'source.score': "the score of '{query}' with '{key}'",
    'source.divisor': 'the divisor {divisor}',
    'source.scaledRow': "the scaled scores of '{query}' (its row)",
    'source.weightsRow': "the weights of '{query}' (its row)",
    'source.vColumn': 'column {col} of V',
    'source.zCell': "z of '{query}', column {col}, head {head}",
    'source.concatRow': "row '{query}' of the concatenation",

    // hint 2: the formula with the numbers
    'formula.q': 'q = x · W_q: {terms}',
    'formula.scores': "score = q['{query}'] · k['{key}']: {terms}",
    'formula.scaled': 'scaled = score / {why}: {score} / {divisor}',
    'formula.weights': "weight = e^(scaled) / Σ over the row of e^(scaled): e^{own} / ({terms})",
    'formula.softmax': 'each weight = e^(its scaled score) / Σ over the row of e^(scaled score); that sum is {terms}',
    'formula.z': "z = Σ over the keys of weight × v: {terms}",
    'formula.concat': "concatenation column {col} = column {headCol} of head {head}'s z: [Z₁ | Z₂ | …] puts the heads' z side by side.",
    'formula.output': 'output = concatenation · W_O: {terms}',
    'why.sqrtDk': '√d_k = √{dK}',
    'why.divisor': 'the chosen divisor',

    'formula.more': '… ({count} more terms)',

    // typical mistakes, named
    'mistake.noScaling': 'that is the value without dividing by {divisor} (the scaling step was skipped).',
    'mistake.dividedByDk': 'that is the score divided by d_k; divide by √d_k instead.',
    'mistake.unnormalised': 'that is the unnormalised e^x; divide it by the sum of e^x over the row.',
    'mistake.unnormalisedSum': 'that sum uses the unnormalised e^x as weights; the weights must be e^x divided by the row sum.',
    'mistake.wrongAxis': 'that normalises down the column (over the queries); softmax runs along the row of the query.',
    'mistake.wrongAxisSum': 'that takes the column of the weights (how much others attend to this word); use the row of the query.',
    'mistake.kNotTransposed': "that is q times a column of K (Q·K); a score uses a column of Kᵀ, i.e. the row of K for '{key}'.",
    'mistake.wrongKeyRow': "that uses the row of K for '{query}' (the query's own key); the score needs the key of '{key}'.",
    'mistake.swapped': "that is the score of '{key}' with '{query}': query and key are swapped.",
    'mistake.rowNotColumn': 'that takes a row of {matrix} instead of column {col}.',
    'mistake.otherHead': 'that is the value of another head; this column belongs to head {head}.',

    // a mistake's short name, for "this blank cannot reveal …"
    'name.noScaling': 'leaving out the scaling',
    'name.dividedByDk': 'dividing by d_k instead of √d_k',
    'name.unnormalised': 'the unnormalised e^x',
    'name.unnormalisedSum': 'weighting by the unnormalised e^x',
    'name.wrongAxis': 'softmax down the column',
    'name.wrongAxisSum': 'the column of the weights instead of the row',
    'name.kNotTransposed': 'a column of K instead of Kᵀ',
    'name.wrongKeyRow': "the query's own key",
    'name.swapped': 'query and key swapped',
    'name.rowNotColumn': 'a row of the matrix instead of a column',
    'name.otherHead': "another head's z",

    // answers that are not numbers
    'answer.empty': 'Type a number first.',
    'answer.tooLong': 'That is too long for a number.',
    'answer.notNumber': "'{text}' is not a number. Write it like 0.42, -1.5, 1/3 or ½.",
    'answer.exponent': "'{text}' has an exponent without digits: write 3e-2 for 0.03, or just 3.",
    'answer.zeroDenominator': "'{text}' divides by zero.",
    'answer.ambiguousComma': "'{text}' is ambiguous: a comma followed by three digits could be a thousands separator. Write 1.000 or 1000.",
    'answer.thousands': "'{text}' mixes commas and points: write the number without a thousands separator, e.g. 1234.5.",
    'answer.percent': "Write it without %: {suggestion}.",
    'answer.space': "'{text}' has a space inside the number: remove it.",

    // the teacher's panel
    'teacher.toggle': 'Make an exercise',
    'teacher.title': 'Make an exercise',
    'teacher.intro': 'The inputs are the lab\'s current ones: choose an example or type your own sentence and numbers above, then choose what to blank.',
    'teacher.query': 'Query token',
    'teacher.key': 'Key token',
    'teacher.head': 'Head',
    'teacher.column': 'Column (for q, z, concatenation, output)',
    'teacher.cells': 'Cells to blank',
    'teacher.relative': 'Tolerance, relative (%)',
    'teacher.absolute': 'Tolerance, absolute',
    'teacher.hints': 'Hints allowed',
    'teacher.write': 'Write link',
    'teacher.link': 'Link to the page, opening this exercise:',
    'teacher.iframe': 'For a course platform that only allows iframes:',
    'teacher.component': 'In a page that allows scripts:',
    'teacher.copy': 'Copy',
    'teacher.copied': 'Copied.',
    'teacher.copyByHand': 'The clipboard is not available here: select the text and copy it.',
    'teacher.written': { count: 'count', one: 'The link opens {count} exercise.', other: 'The link opens {count} exercises.' },
    'teacher.noCell': 'Choose at least one cell to blank.',
    'teacher.badTolerance': '{field} must be a number from 0 to {max}; got \'{text}\'.',
    'kind.q': 'a q entry',
    'kind.scores': 'a score q·k',
    'kind.scaled': 'its scaling',
    'kind.weights': 'one softmax weight',
    'kind.softmax': 'the softmax of its row',
    'kind.z': 'a z entry',
    'kind.concat': 'a concatenation entry',
    'kind.output': 'an output entry',

    // a link that cannot be read
    'link.notObject': 'the practice settings are not an object',
    'link.unknown': 'unknown practice setting "{key}"',
    'link.invalid': 'the practice setting "{key}" is not valid',
  },
};

/** The sentence for `key` in `lang`, with {name} placeholders filled from `params`. */
export function message(key, params = {}, lang = 'en') {
  const catalogue = Object.hasOwn(MESSAGES, lang) ? MESSAGES[lang] : MESSAGES.en;
  let template = Object.hasOwn(catalogue, key) ? catalogue[key] : MESSAGES.en[key];
  if (template === undefined) throw new Error(`no message "${key}"`);
  if (typeof template === 'object') {
    const form = new Intl.PluralRules(lang).select(Number(params[template.count]));
    template = Object.hasOwn(template, form) ? template[form] : template.other;
  }
  return template.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}
