"""The dress rehearsal's parts (issue 38); the command is bench/rehearsal.py.

``stack`` starts the platform, ``roster`` says which bots take part and what each should meet,
``variant_bot`` is the honest bots' program, ``participants`` talks to the server as people would,
``viewers`` read the pages, ``order`` and ``ledger`` judge the ladder and the queue, ``errors``
classes the logs' error lines, ``run`` is the timeline and ``report`` the figures.
"""
