"""The reference corpus: read books, clean Gutenberg text, chunk, embed (cached) and count unigrams."""

from llmcreativity.corpus.books import Book, read_books
from llmcreativity.corpus.chunking import Chunk, chunk_book
from llmcreativity.corpus.gutenberg import clean_book
from llmcreativity.corpus.store import ChunkingParams, CorpusStore, build_store, export_store, load_exported
from llmcreativity.corpus.unigram import counts_from_table, counts_table, unigram_counts
from llmcreativity.metrics.tokenize import tokenize

__all__ = [
    "Book",
    "Chunk",
    "ChunkingParams",
    "CorpusStore",
    "build_store",
    "chunk_book",
    "clean_book",
    "counts_from_table",
    "counts_table",
    "export_store",
    "load_exported",
    "read_books",
    "tokenize",
    "unigram_counts",
]
