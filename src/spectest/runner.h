// Core spec test runner. (Being written.)
#pragma once
