"""Running the stage notebooks: the stage table, one entry per stage with its profiles, outputs, scale and claims
(`stages`), the parameters cell
(`parameters`), dependency order (`order`), planning a run (`planning`), executing it with papermill
(`execution`), the run manifest (`manifest`), the publish check (`publish`), each page's provenance
(`provenance`) and the claims ledger: every claim of both papers (`claim_table`), the recorded verdicts
(`claims`), the judges' agreement with humans (`judge_validity`) and the claims page (`ledger`).
Building and printing the book is `llmcreativity_book`.
"""
