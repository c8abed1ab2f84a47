"""Models of a randomized answer: logistic and linear fits, formulas, their power."""
