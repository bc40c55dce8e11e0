// Test helper: a JSON schema validator for the subset grammar::JsonSchemaToGbnf converts, so
// that tests can check that every output a converted grammar allows is a valid instance.
#ifndef EDGEQ_GRAMMAR_JSON_VALIDATE_TESTING_H_
#define EDGEQ_GRAMMAR_JSON_VALIDATE_TESTING_H_

#include <string>

#include "nlohmann/json.hpp"

namespace edgeq {
namespace grammar {

// True when `instance` is valid under `schema` (whose "#/..." refs resolve in `root`);
// otherwise false with the reason in *why. Not a general validator: it knows the keywords the
// converter supports, with their JSON-schema meaning.
bool ValidateJson(const nlohmann::ordered_json& root, const nlohmann::ordered_json& schema,
                  const nlohmann::ordered_json& instance, std::string* why);

}  // namespace grammar
}  // namespace edgeq

#endif  // EDGEQ_GRAMMAR_JSON_VALIDATE_TESTING_H_
