"""The ``DESCR`` texts of the BBC News and BBC Sport loaders."""

_CITATION = """\
D. Greene and P. Cunningham. "Practical Solutions to the Problem of Diagonal Dominance
in Kernel Document Clustering", Proc. ICML 2006. Non-commercial research use only; all
rights in the articles belong to the BBC. http://mlg.ucd.ie/datasets/bbc.html
"""

_FORMAT = """\
Each document is an article file ``<corpus>/<class>/NNN.txt`` of the original archive,
read directly from the zip: its title line, a blank line and its body (surrounding
whitespace stripped; ``include_title=False`` keeps the body alone). Files are decoded as
UTF-8; the few that are not valid UTF-8 are decoded as Latin-1 instead (which never
fails and maps the stray bytes to the characters they most likely were, e.g. byte 0xA3
to "£"). Documents are sorted by class, then by file name.
"""

_BBC_DESCR = f"""\
.. _bbc_dataset:

BBC News
--------

2,225 articles from the BBC News website (2004-2005) in five topical areas.

=============  =====
class          count
=============  =====
business         510
entertainment    386
politics         417
sport            511
tech             401
=============  =====

=================   ==========
Classes                      5
Samples total            2,225
Features                  text
=================   ==========

{_FORMAT}
{_CITATION}"""

_BBCSPORT_DESCR = f"""\
.. _bbcsport_dataset:

BBC Sport
---------

737 articles from the BBC Sport website (2004-2005) in five sports.

=============  =====
class          count
=============  =====
athletics        101
cricket          124
football         265
rugby            147
tennis           100
=============  =====

=================   ==========
Classes                      5
Samples total              737
Features                  text
=================   ==========

{_FORMAT}
The archive's sha256 is not pinned (no copy was available to measure it): a download is
accepted if it is a zip with the five expected class folders, and a warning reports its
sha256. Pass ``sha256=`` to verify a download against a known digest.

{_CITATION}"""
