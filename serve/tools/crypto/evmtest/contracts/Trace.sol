// SPDX-License-Identifier: MIT
// Contracts for simulate_tx's call-tracing tests: a router that pulls the
// sender's tokens and forwards native value in inner calls, a vault that
// reverts deep in the call tree (custom error or string reason), minimal
// ERC-721 and ERC-1155 collections and a market that takes NFTs and pays
// native value back. Written for this project.
pragma solidity 0.8.37;

interface IERC20 {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

// Vault accepts native value up to limit: more reverts with the custom
// error Refused (plain transfers) or the string "Vault: over limit"
// (deposit).
contract Vault {
    error Refused(address from, uint256 amount);

    uint256 public limit;

    constructor(uint256 limit_) {
        limit = limit_;
    }

    receive() external payable {
        if (msg.value > limit) revert Refused(msg.sender, msg.value);
    }

    function deposit() external payable {
        require(msg.value <= limit, "Vault: over limit");
    }
}

// TraceRouter moves the caller's assets only through inner calls.
contract TraceRouter {
    // pullAndForward takes amount of token from the caller to sink with
    // transferFrom, then sends the call's value on to vault; a vault
    // revert is bubbled up unchanged.
    function pullAndForward(address token, uint256 amount, address sink, address payable vault) external payable {
        require(IERC20(token).transferFrom(msg.sender, sink, amount), "TraceRouter: pull failed");
        (bool ok, bytes memory ret) = vault.call{value: msg.value}("");
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
    }

    // forwardDeposit passes the value to Vault.deposit.
    function forwardDeposit(address payable vault) external payable {
        Vault(vault).deposit{value: msg.value}();
    }
}

// NFT721 is a minimal ERC-721 (events and transfer rules of EIP-721).
contract NFT721 {
    mapping(uint256 => address) public ownerOf;
    mapping(uint256 => address) public getApproved;
    mapping(address => mapping(address => bool)) public isApprovedForAll;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    function mint(address to, uint256 id) external {
        require(ownerOf[id] == address(0), "NFT721: minted");
        ownerOf[id] = to;
        emit Transfer(address(0), to, id);
    }

    function approve(address to, uint256 id) external {
        require(ownerOf[id] == msg.sender, "NFT721: not owner");
        getApproved[id] = to;
        emit Approval(msg.sender, to, id);
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function transferFrom(address from, address to, uint256 id) public {
        require(ownerOf[id] == from, "NFT721: not owner");
        require(msg.sender == from || getApproved[id] == msg.sender || isApprovedForAll[from][msg.sender], "NFT721: not allowed");
        ownerOf[id] = to;
        delete getApproved[id];
        emit Transfer(from, to, id);
    }
}

// Multi1155 is a minimal ERC-1155 (events and transfer rules of EIP-1155,
// without receiver hooks).
contract Multi1155 {
    mapping(uint256 => mapping(address => uint256)) public balanceOf;
    mapping(address => mapping(address => bool)) public isApprovedForAll;

    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    function mint(address to, uint256 id, uint256 amount) external {
        balanceOf[id][to] += amount;
        emit TransferSingle(msg.sender, address(0), to, id, amount);
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes calldata) external {
        require(from == msg.sender || isApprovedForAll[from][msg.sender], "1155: not allowed");
        balanceOf[id][from] -= amount;
        balanceOf[id][to] += amount;
        emit TransferSingle(msg.sender, from, to, id, amount);
    }

    function safeBatchTransferFrom(address from, address to, uint256[] calldata ids, uint256[] calldata amounts, bytes calldata) external {
        require(from == msg.sender || isApprovedForAll[from][msg.sender], "1155: not allowed");
        for (uint256 i = 0; i < ids.length; i++) {
            balanceOf[ids[i]][from] -= amounts[i];
            balanceOf[ids[i]][to] += amounts[i];
        }
        emit TransferBatch(msg.sender, from, to, ids, amounts);
    }
}

// Market buys an ERC-721 token and ERC-1155 units from the caller (both
// pulled by inner calls) and pays price in native value from its balance.
contract Market {
    function sell(NFT721 nft, uint256 id, Multi1155 multi, uint256 multiId, uint256 amount, uint256 price) external {
        nft.transferFrom(msg.sender, address(this), id);
        multi.safeTransferFrom(msg.sender, address(this), multiId, amount, "");
        (bool ok, ) = payable(msg.sender).call{value: price}("");
        require(ok, "Market: payment failed");
    }

    receive() external payable {}
}
