"""XLSForm import and export, the field's own questionnaire format: a form read with pyxform, the reference
implementation of XLSForm
(`reading`), its `privacy` column (`privacy`), the survey it makes (`importing`), and a survey written back as
an XLSForm workbook or its JSON (`writing`). See docs/xlsform.md."""
