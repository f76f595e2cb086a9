"""The `graphmem` command: every MemoryService operation from a shell.

`main` assembles the parser and runs a command; `common` holds what every command shares
(opening the service, resolving the user, printing, exit codes); each other module is one
family of commands and registers its own subcommands.
"""
