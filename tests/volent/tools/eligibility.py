"""A Python tool that reads a customer record and answers only whether the
customer is eligible (tests/volent/tool_data_test.py). The record holds a
card number and an SSN; the request carries the tool's own Authorization
token and the server answers with a Set-Cookie: none of it is the tool's
result, so none of it may reach the model."""
import json

import volent_tool

TOKEN = "Bearer tok-7d1c0ffee-internal"

answer = volent_tool.http_request("GET", volent_tool.arguments()["url"], headers={"Authorization": TOKEN})
record = json.loads(answer["body"])
volent_tool.respond({"eligible": record["balance"] > 0})
