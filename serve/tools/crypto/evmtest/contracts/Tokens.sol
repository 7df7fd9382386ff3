// SPDX-License-Identifier: MIT
// Test tokens for the crypto tools' tests. Written for this project; the
// behaviours mirror what token audits look for on real chains.
pragma solidity 0.8.37;

// Token is a plain ERC-20 with a fixed supply and no owner: the "clean"
// token of the test chain. Storage: balanceOf is slot 0, allowance slot 1.
contract Token {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256 public totalSupply;
    string public name;
    string public symbol;
    uint8 public decimals;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 supply) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        _mint(msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 a = allowance[from][msg.sender];
        if (a != type(uint256).max) {
            require(a >= value, "ERC20: insufficient allowance");
            allowance[from][msg.sender] = a - value;
        }
        _transfer(from, to, value);
        return true;
    }

    function _mint(address to, uint256 value) internal {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function _move(address from, address to, uint256 value) internal {
        require(balanceOf[from] >= value, "ERC20: transfer amount exceeds balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }

    function _transfer(address from, address to, uint256 value) internal virtual {
        _move(from, to, value);
    }
}

// FeeToken takes a fee the owner can change on every transfer not from or
// to the owner, and lets the owner mint: a fee-on-transfer token.
contract FeeToken is Token {
    address public owner;
    uint256 public feeBps;

    constructor(uint256 supply, uint256 feeBps_) Token("Fee Token", "FEE", 18, supply) {
        owner = msg.sender;
        feeBps = feeBps_;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "not owner");
        _;
    }

    function setFee(uint256 bps) external onlyOwner {
        require(bps <= 10000, "fee too high");
        feeBps = bps;
    }

    function mint(address to, uint256 value) external onlyOwner {
        _mint(to, value);
    }

    function transferOwnership(address to) external onlyOwner {
        owner = to;
    }

    function _transfer(address from, address to, uint256 value) internal override {
        if (from == owner || to == owner || feeBps == 0) {
            _move(from, to, value);
            return;
        }
        uint256 fee = value * feeBps / 10000;
        _move(from, owner, fee);
        _move(from, to, value - fee);
    }
}

// Honeypot can be bought but not sold: a transfer into the registered pair
// reverts unless it comes from the owner. It also has a blacklist and a
// pause switch.
contract Honeypot is Token {
    address public owner;
    address public pair;
    bool public paused;
    mapping(address => bool) public isBlacklisted;

    constructor(uint256 supply) Token("Moon Rocket", "MOON", 18, supply) {
        owner = msg.sender;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "not owner");
        _;
    }

    function setPair(address p) external onlyOwner {
        pair = p;
    }

    function blacklist(address who, bool on) external onlyOwner {
        isBlacklisted[who] = on;
    }

    function pause() external onlyOwner {
        paused = true;
    }

    function unpause() external onlyOwner {
        paused = false;
    }

    function _transfer(address from, address to, uint256 value) internal override {
        if (from != owner) {
            require(!paused, "paused");
            require(!isBlacklisted[from], "blacklisted");
            require(to != pair, "HP: transfer to pair forbidden");
        }
        _move(from, to, value);
    }
}

// WETH9-style wrapped native token.
contract WETH9 is Token {
    constructor() Token("Wrapped Ether", "WETH", 18, 0) {}

    function deposit() public payable {
        _mint(msg.sender, msg.value);
    }

    function withdraw(uint256 value) external {
        require(balanceOf[msg.sender] >= value, "WETH: insufficient balance");
        balanceOf[msg.sender] -= value;
        totalSupply -= value;
        emit Transfer(msg.sender, address(0), value);
        payable(msg.sender).transfer(value);
    }

    receive() external payable {
        deposit();
    }
}
