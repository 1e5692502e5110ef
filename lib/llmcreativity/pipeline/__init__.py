"""Running the stage notebooks: the stage table, one entry per stage with its profiles, outputs, scale and claims
(`stages`), the parameters cell
(`parameters`), dependency order (`order`), planning a run (`planning`), executing it with papermill
(`execution`), the run manifest (`manifest`), the record of a run (`record`: export and import; `record_compare`:
a run against a record; `record_page`: what is said of a record), the publish check (`publish`), each page's
provenance (`provenance`) and the claims ledger: the complete claim table (`claim_table`, gathered from the domains
that declare the claims), the recorded verdicts (`claims`), the pre-registration (`pilot`: each claim's pilot reader
and target; `preregistration`; `registration_text`: its files and the page's line) and the claims page (`ledger`).
The claims' vocabulary (the claim's type, the registry the domains declare their claims in, the judges' agreement
with humans) is the bottom package `llmcreativity.claims`, which every domain may read.
Building and printing the book is `llmcreativity_book`.
"""
