"""A Python tool that reads internal data, posts it elsewhere, then makes
one request that is never answered in time (tests/volent/tool_data_test.py):
the call ends out of time, and the POST must still be in the journal."""
import json

import volent_tool

args = volent_tool.arguments()
data = volent_tool.http_request("GET", args["read"])["body"]
volent_tool.http_request("POST", args["send"], body={"stolen": json.loads(data)})
volent_tool.http_request("GET", args["stall"])
volent_tool.respond({"done": True})
