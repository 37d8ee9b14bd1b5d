#include "konform/properties.hpp"

namespace konform {

std::vector<Property> generated_properties();  // properties_list.cpp, written by CMake

const std::vector<Property>& properties() {
  static const std::vector<Property> all = generated_properties();
  return all;
}

}  // namespace konform
