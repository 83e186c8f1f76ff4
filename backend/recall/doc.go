// Package recall decides which learned procedure, if any, a new request is
// the same task as.
//
// Its contract: given a request and candidate procedures (each with its
// trigger variants and, when computed, their sentence vectors), Rank orders
// the candidates by one fused score and Decide returns the best one only
// when the probability that the request asks for work at all, times the
// probability that the best candidate is its task, reaches 0.5. All three
// are small logistic models over a handful of features (how much of the
// trigger the request covers, by exact word and by meaning; how much of the
// request the trigger explains; word-vector and sentence-vector cosines;
// the margin to the runner-up; the request's intent and form). Their
// weights are data (model.json), fitted by `make fit-recall` from the
// studied evaluation sets; nothing here branches on particular words. Words the vocabulary does
// not know are corrected (a SymSpell-style lookup against the lexicon's word
// list) before meaning is compared, so a misspelt request reads as the
// request meant. Merge answers learning's question instead (is a request
// just handled the best candidate's task, when the store may not hold its
// task at all), from the same inputs fitted with that case as negatives.
//
// Nothing here touches a database or an index: callers gather candidates
// (Bleve and nearest vectors in the procedures package) and filter forgotten
// or stale procedures after ranking, so a request about a forgotten
// procedure is not answered by its nearest sibling.
package recall
