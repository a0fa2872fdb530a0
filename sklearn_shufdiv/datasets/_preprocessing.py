"""Text cleaning used to prepare the benchmark corpora.

These are the steps the paper applies to 20 Newsgroups after scikit-learn's header and
footer removal: URLs and e-mail addresses are removed, whitespace is normalised, and
documents with fewer than ten words are dropped. They are plain functions on strings
so that the same cleaning can be applied to any corpus.
"""

import re

__all__ = ["remove_urls_emails", "normalize_whitespace", "count_words", "clean_text"]

# A URL: a scheme followed by "://" (or a bare "www." host), up to the next whitespace
# or quoting character.
_URL_RE = re.compile(
    r"""(?:\b(?:https?|s?ftp|file|gopher|news|nntp|telnet|wais)://|\bwww\.)[^\s<>"'()\[\]{}]+""",
    re.IGNORECASE,
)
# An e-mail address, optionally prefixed by "mailto:" and wrapped in angle brackets.
# The domain needs at least one dot, so that a lone "@" in prose is kept.
_EMAIL_RE = re.compile(
    r"<?(?:mailto:)?[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(?:\.[\w-]+)+>?",
    re.IGNORECASE,
)
_WORD_RE = re.compile(r"\S*\w\S*")


def remove_urls_emails(text):
    """Remove URLs and e-mail addresses from a text.

    Each URL (``http://``, ``https://``, ``ftp://``, ``news://``... or a bare
    ``www.`` host) and each e-mail address (with an optional ``mailto:`` prefix and
    enclosing angle brackets) is replaced by a single space, so that the words around
    it are not glued together; follow with :func:`normalize_whitespace` to tidy up.
    An address needs a dotted domain (``user@host.edu``): a lone ``@`` and dotless
    forms such as ``user@host`` are kept, so that uuencoded data or code is not
    mangled.

    Parameters
    ----------
    text : str
        The text to clean.

    Returns
    -------
    text : str
        The text without URLs and e-mail addresses.

    Examples
    --------
    >>> from sklearn_shufdiv.datasets import remove_urls_emails
    >>> remove_urls_emails("Mail <jdoe@cs.example.edu> or see http://example.com/faq.")
    'Mail   or see  '
    """
    text = _URL_RE.sub(" ", text)
    return _EMAIL_RE.sub(" ", text)


def normalize_whitespace(text):
    """Collapse every run of whitespace (newlines included) to one space and strip.

    Parameters
    ----------
    text : str
        The text to normalise.

    Returns
    -------
    text : str
        The text as one line of words separated by single spaces.

    Examples
    --------
    >>> from sklearn_shufdiv.datasets import normalize_whitespace
    >>> normalize_whitespace("  Hello,\\n\\n\\tworld!  ")
    'Hello, world!'
    """
    return " ".join(text.split())


def count_words(text):
    """Count the words of a text.

    A word is a whitespace-separated token containing at least one letter or digit,
    so that lines of punctuation (``-----``, ``>>``) do not count.

    Parameters
    ----------
    text : str
        The text.

    Returns
    -------
    n_words : int
        The number of words.

    Examples
    --------
    >>> from sklearn_shufdiv.datasets import count_words
    >>> count_words("Hello -- world, it's 1993 ... !")
    4
    """
    return len(_WORD_RE.findall(text))


def clean_text(text):
    """Remove URLs and e-mail addresses, then normalise whitespace.

    Parameters
    ----------
    text : str
        The text to clean.

    Returns
    -------
    text : str
        ``normalize_whitespace(remove_urls_emails(text))``.

    Examples
    --------
    >>> from sklearn_shufdiv.datasets import clean_text
    >>> clean_text("Thanks!\\n\\n-- \\nJane (jane@example.org), www.example.org/jane")
    'Thanks! -- Jane ( ),'
    """
    return normalize_whitespace(remove_urls_emails(text))
