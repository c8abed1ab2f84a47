"""Models of a survey's answers, fitted with ldp from the stored reports."""
