// Package data serves reusable reference datasets: the free catalogue
// GET /v1/datasets and the paid pages and records of GET /v1/dataset/{key}:
// world-cities (GeoNames, CC BY 4.0), countries (countries-list, MIT) and
// archive-topics (the current archive snapshot's topics with document
// counts). Every answer carries the dataset's licence, attribution and
// source version.
package data
