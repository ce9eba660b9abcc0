"""The call path, after the model picks from a menu: the gate, schema validation, the
risk policy, running the call and capping what it returns, and the trace of it all."""
