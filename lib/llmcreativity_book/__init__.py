"""Publishing and test tooling of the book, kept out of the science package `llmcreativity`.

`site` builds the Jupyter Book from the executed stage notebooks, `pdf` prints it to one PDF, and
`browser` drives a headless Chromium over the DevTools protocol to look at the built pages.
"""
