// Compiles Trace.sol (simulate_tx's tracing scenario) into
// trace_artifacts.json, kept apart from artifacts.json so the two scenarios
// are rebuilt independently. Run: NODE_PATH=/tmp/solcjs/node_modules node build_trace.js
// (build.sh runs it too).
const fs = require('fs');
const solc = require('solc');
const input = {
  language: 'Solidity',
  sources: { 'Trace.sol': { content: fs.readFileSync('Trace.sol', 'utf8') } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    viaIR: true,
    evmVersion: 'cancun',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errs = (out.errors || []).filter(e => e.severity === 'error');
if (errs.length) { console.error(errs.map(e => e.formattedMessage).join('\n')); process.exit(1); }
const arts = { compiler: solc.version(), contracts: {} };
for (const [name, c] of Object.entries(out.contracts['Trace.sol'])) {
  if (!c.evm.bytecode.object) continue; // interfaces
  arts.contracts[name] = { abi: c.abi, bin: '0x' + c.evm.bytecode.object, runtime: '0x' + c.evm.deployedBytecode.object };
}
fs.writeFileSync('trace_artifacts.json', JSON.stringify(arts, null, 1) + '\n');
console.log('wrote trace_artifacts.json with', Object.keys(arts.contracts).join(', '));
