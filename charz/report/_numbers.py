"""Profile numbers as text a person reads; the functions live in :mod:`charz._text`.

The terminal summary uses the same ones (without loading matplotlib), so a number
reads the same in the summary, a caption, an annotation and the results table.
"""

from charz._text import RESULT_LABELS, format_given, format_quantity, ordered_result_keys, size_label

__all__ = ["RESULT_LABELS", "format_given", "format_quantity", "ordered_result_keys", "size_label"]
