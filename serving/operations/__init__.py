"""Operating a running selector: OpenTelemetry spans of discovery and tool calls
(`otel`), and the offline report that reads a day's traces and names where requests
were lost (`diagnose`, behind `toolsift diagnose`)."""
