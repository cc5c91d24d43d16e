"""Submissions: how a bot enters, from the submitter's folder to a version a worker can run.

- ``registry``: named bots and their versions in Redis (pack, register, update, remove, resolve a seat).
- ``archives``: the tar.gz a version travels as, checked where it is received and where it is unpacked.
- ``entries``: whether an entry command can start in the unpacked folder, checked on both sides.
- ``build``: a version's build command, run once per worker inside the sandbox and its limits.
- ``smoke``: the match against ``random`` a candidate version plays before anyone else's bot.
- ``owner_secrets``: owner secrets and tokens, stored only as salted scrypt hashes.
- ``owners``: each bot's account, so one person's bots never share a rated table.
"""
