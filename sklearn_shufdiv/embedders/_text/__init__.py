"""The text room: checking the documents, splitting sentences, making positive pairs.

What happens to the documents before any encoder sees them: their validation, the
sentence splitter, the positive-pair strategies (shuffle & divide, TF-IDF neighbours, with
the blocked top-1 cosine search they use) and the check that enough documents train.
"""
