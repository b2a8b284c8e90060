// The book's search scores (book/_ext/book_search.py): Sphinx's defaults, and every result on the API page
// lowered by 100, so that the chapters a reader searches come first and the package's functions after them.
var Scorer = {
  score: (result) => (result[0] === "book/api" ? result[4] - 100 : result[4]),
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: {0: 15, 1: 5, 2: -5},
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
