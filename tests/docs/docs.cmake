# The docs against the code and the build (tests/docs/docs_test.py): no
# citation of a document outside the repository, README.md's status table
# true to the pages it links, docs/architecture.md's dependency lists equal to
# the build's, and the layers kept apart.
add_python_test(docs_citations docs/docs_test.py citations)
add_python_test(docs_status docs/docs_test.py status)
add_python_test(docs_architecture_links docs/docs_test.py links ${CMAKE_BINARY_DIR})
add_python_test(docs_layers docs/docs_test.py layers)
