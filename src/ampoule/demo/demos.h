// `ampoule demo refund` and `ampoule demo grader` (docs/demo.md): each runs
// its story end to end with the real subcommands, in a fresh working folder,
// printing every command, its output and whether the outcome was the one
// expected.
//
// Return: 0 when every step gave the expected result, 1 when one did not,
// 2 when the demo could not start (no kernel, unusable --dir); the reason
// goes to stderr.
#pragma once

#include <cstdio>

#include "ampoule/demo/story.h"

namespace ampoule::demo {

// The refund: run with a receipt, replay, gate send; altered output refused;
// an altered amount held; the duplicate escalated with one outbox message;
// the code checked against a held-out export by the C++ reference.
int RunRefundDemo(const DemoOptions& options, FILE* out);

// The RL grader: the vendor's signed run, the lab's replay with the same
// score, and the receipt caught when presented for another episode.
int RunGraderDemo(const DemoOptions& options, FILE* out);

}  // namespace ampoule::demo
