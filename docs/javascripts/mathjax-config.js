// MathJax 3 reads this object when it loads (mkdocs.yml lists this file before MathJax itself).
// pymdown-extensions' arithmatex (generic mode) wraps every formula of the theory pages in an element of class
// "arithmatex", with \( ... \) inline and \[ ... \] for display maths; MathJax typesets those elements and no others,
// so a dollar sign or a backslash in code or prose is never taken for maths.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".*",
    processHtmlClass: "arithmatex",
  },
};
