"""`toolsift serve`: an MCP gateway that puts the selector in front of real agents.

One module a job: `config` (the servers file), `registry` (downstream tool lists ->
reviewed cards, the quarantine), `index` (a Selector over the live tools, cold start),
`downstream` (the MCP client sessions to the real servers), `session` (one client's
active set and observations), `handlers` (what the client sees and calls), `server`
(the MCP server and its transports), `demo` (a fake backend serving a catalog).
Nothing here is imported by `serving` itself: the `mcp` SDK is the `serve` extra.
"""
