"""cuzk's reference: readable pure Python (no numpy, no threads, no caching) that is the specification.

Every fast backend is checked against these functions bit for bit. Read them top to bottom like the paper.
"""
