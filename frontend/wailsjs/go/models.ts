export namespace app {
	
	export class HookSample {
	    workspace: string;
	    tool: string;
	    args: string;
	    text: string;
	    answer: string;
	    output: string;
	
	    static createFrom(source: any = {}) {
	        return new HookSample(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workspace = source["workspace"];
	        this.tool = source["tool"];
	        this.args = source["args"];
	        this.text = source["text"];
	        this.answer = source["answer"];
	        this.output = source["output"];
	    }
	}
	export class HookTrial {
	    says: string;
	    notes: string[];
	
	    static createFrom(source: any = {}) {
	        return new HookTrial(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.says = source["says"];
	        this.notes = source["notes"];
	    }
	}
	export class HooksImport {
	    file: string;
	    added: hooks.Hook[];
	    held: hooks.Hook[];
	    skipped: hooks.Skipped[];
	    notes: string[];
	    project: boolean;
	    plugin?: string;
	
	    static createFrom(source: any = {}) {
	        return new HooksImport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.file = source["file"];
	        this.added = this.convertValues(source["added"], hooks.Hook);
	        this.held = this.convertValues(source["held"], hooks.Hook);
	        this.skipped = this.convertValues(source["skipped"], hooks.Skipped);
	        this.notes = source["notes"];
	        this.project = source["project"];
	        this.plugin = source["plugin"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RecommendedModel {
	    name: string;
	    size: string;
	    note: string;
	
	    static createFrom(source: any = {}) {
	        return new RecommendedModel(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.size = source["size"];
	        this.note = source["note"];
	    }
	}
	export class Sandbox {
	    on: boolean;
	    wanted: boolean;
	    detail: string;
	
	    static createFrom(source: any = {}) {
	        return new Sandbox(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.on = source["on"];
	        this.wanted = source["wanted"];
	        this.detail = source["detail"];
	    }
	}
	export class ToolQuestion {
	    id: string;
	    tool: string;
	    message: string;
	    fields: tool.Field[];
	    url?: string;
	    warnings?: string[];
	    sample?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ToolQuestion(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.tool = source["tool"];
	        this.message = source["message"];
	        this.fields = this.convertValues(source["fields"], tool.Field);
	        this.url = source["url"];
	        this.warnings = source["warnings"];
	        this.sample = source["sample"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace approval {
	
	export class Request {
	    id: string;
	    question?: string;
	    tool: string;
	    arguments: number[];
	    read_only: boolean;
	    workspace?: string;
	    asked?: boolean;
	    shown?: string;
	    preview?: string;
	    outside?: string;
	    effects?: string[];
	    warnings?: string[];
	    must_ask?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Request(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.question = source["question"];
	        this.tool = source["tool"];
	        this.arguments = source["arguments"];
	        this.read_only = source["read_only"];
	        this.workspace = source["workspace"];
	        this.asked = source["asked"];
	        this.shown = source["shown"];
	        this.preview = source["preview"];
	        this.outside = source["outside"];
	        this.effects = source["effects"];
	        this.warnings = source["warnings"];
	        this.must_ask = source["must_ask"];
	    }
	}

}

export namespace commands {
	
	export class Command {
	    name: string;
	    description: string;
	    argument_hint?: string;
	    arguments: boolean;
	    scope: string;
	    file: string;
	
	    static createFrom(source: any = {}) {
	        return new Command(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.argument_hint = source["argument_hint"];
	        this.arguments = source["arguments"];
	        this.scope = source["scope"];
	        this.file = source["file"];
	    }
	}
	export class Found {
	    commands: Command[];
	    warnings: string[];
	
	    static createFrom(source: any = {}) {
	        return new Found(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.commands = this.convertValues(source["commands"], Command);
	        this.warnings = source["warnings"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace desktop {
	
	export class Answer {
	    session: string;
	    id: string;
	    question: string;
	    allow: boolean;
	    always: boolean;
	    exact: boolean;
	    reason: string;
	
	    static createFrom(source: any = {}) {
	        return new Answer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = source["session"];
	        this.id = source["id"];
	        this.question = source["question"];
	        this.allow = source["allow"];
	        this.always = source["always"];
	        this.exact = source["exact"];
	        this.reason = source["reason"];
	    }
	}
	export class ChatDefaults {
	    model: string;
	    approve: string;
	    workspace: string;
	
	    static createFrom(source: any = {}) {
	        return new ChatDefaults(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.approve = source["approve"];
	        this.workspace = source["workspace"];
	    }
	}
	export class EmbedStatusView {
	    model: string;
	    wordings: number;
	    embedded: number;
	    in_use: boolean;
	    needed: number;
	    pending: number;
	    failed: number;
	    retry: string;
	    error: string;
	
	    static createFrom(source: any = {}) {
	        return new EmbedStatusView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.wordings = source["wordings"];
	        this.embedded = source["embedded"];
	        this.in_use = source["in_use"];
	        this.needed = source["needed"];
	        this.pending = source["pending"];
	        this.failed = source["failed"];
	        this.retry = source["retry"];
	        this.error = source["error"];
	    }
	}
	export class ImageUpload {
	    name: string;
	    data: string;
	
	    static createFrom(source: any = {}) {
	        return new ImageUpload(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.data = source["data"];
	    }
	}
	export class Imported {
	    names: string[];
	    notes: string[];
	
	    static createFrom(source: any = {}) {
	        return new Imported(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.names = source["names"];
	        this.notes = source["notes"];
	    }
	}
	export class Info {
	    version: string;
	    data_dir: string;
	    ollama_host: string;
	    model: string;
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.data_dir = source["data_dir"];
	        this.ollama_host = source["ollama_host"];
	        this.model = source["model"];
	    }
	}
	export class InstructionsView {
	    files: instructions.File[];
	    warnings: string[];
	
	    static createFrom(source: any = {}) {
	        return new InstructionsView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.files = this.convertValues(source["files"], instructions.File);
	        this.warnings = source["warnings"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ModelChoice {
	    name: string;
	    tools: boolean;
	    embedding: boolean;
	    checked: boolean;
	    sees: boolean;
	    thinks: boolean;
	    trained?: number;
	
	    static createFrom(source: any = {}) {
	        return new ModelChoice(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.tools = source["tools"];
	        this.embedding = source["embedding"];
	        this.checked = source["checked"];
	        this.sees = source["sees"];
	        this.thinks = source["thinks"];
	        this.trained = source["trained"];
	    }
	}
	export class OllamaSetup {
	    installed: boolean;
	    path: string;
	    local: boolean;
	    started: boolean;
	    install: string[];
	    log: string[];
	
	    static createFrom(source: any = {}) {
	        return new OllamaSetup(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.installed = source["installed"];
	        this.path = source["path"];
	        this.local = source["local"];
	        this.started = source["started"];
	        this.install = source["install"];
	        this.log = source["log"];
	    }
	}
	export class ParamsView {
	    specs: model.ParamSpec[];
	    set: {[key: string]: number};
	    modelfile: {[key: string]: number};
	    note: string;
	
	    static createFrom(source: any = {}) {
	        return new ParamsView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.specs = this.convertValues(source["specs"], model.ParamSpec);
	        this.set = source["set"];
	        this.modelfile = source["modelfile"];
	        this.note = source["note"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ProcedureRuns {
	    learned?: metrics.Run;
	    uses: metrics.Run[];
	
	    static createFrom(source: any = {}) {
	        return new ProcedureRuns(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.learned = this.convertValues(source["learned"], metrics.Run);
	        this.uses = this.convertValues(source["uses"], metrics.Run);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ProcedureView {
	    id: string;
	    trigger: string;
	    triggers: string[];
	    tools: string[];
	    uses: number;
	    demerits: number;
	    status: string;
	    missing_tools: string[];
	    sessions: string[];
	    examples: string[];
	    // Go type: time
	    last_used: any;
	    score: number;
	    declined: string[];
	
	    static createFrom(source: any = {}) {
	        return new ProcedureView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.trigger = source["trigger"];
	        this.triggers = source["triggers"];
	        this.tools = source["tools"];
	        this.uses = source["uses"];
	        this.demerits = source["demerits"];
	        this.status = source["status"];
	        this.missing_tools = source["missing_tools"];
	        this.sessions = source["sessions"];
	        this.examples = source["examples"];
	        this.last_used = this.convertValues(source["last_used"], null);
	        this.score = source["score"];
	        this.declined = source["declined"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PromptChoice {
	    server: string;
	    from?: string;
	    file?: string;
	    name: string;
	    title?: string;
	    description?: string;
	    arguments: mcp.PromptArgument[];
	
	    static createFrom(source: any = {}) {
	        return new PromptChoice(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.from = source["from"];
	        this.file = source["file"];
	        this.name = source["name"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.arguments = this.convertValues(source["arguments"], mcp.PromptArgument);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RecentWorkspace {
	    path: string;
	    sessions: number;
	
	    static createFrom(source: any = {}) {
	        return new RecentWorkspace(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.sessions = source["sessions"];
	    }
	}
	export class ResourceChoice {
	    server: string;
	    uri: string;
	    name: string;
	    mime_type: string;
	    description: string;
	
	    static createFrom(source: any = {}) {
	        return new ResourceChoice(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.uri = source["uri"];
	        this.name = source["name"];
	        this.mime_type = source["mime_type"];
	        this.description = source["description"];
	    }
	}
	export class RuleView {
	    workspace: string;
	    tool: string;
	    rule: string;
	    call?: string;
	    // Go type: time
	    updated: any;
	
	    static createFrom(source: any = {}) {
	        return new RuleView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workspace = source["workspace"];
	        this.tool = source["tool"];
	        this.rule = source["rule"];
	        this.call = source["call"];
	        this.updated = this.convertValues(source["updated"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RunChanges {
	    run: number;
	    files: number;
	
	    static createFrom(source: any = {}) {
	        return new RunChanges(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run = source["run"];
	        this.files = source["files"];
	    }
	}
	export class SendRequest {
	    session_id: string;
	    text: string;
	    workspace: string;
	    model: string;
	    approve: string;
	    images: ImageUpload[];
	    replace: number;
	    undo_replaced: boolean;
	    token: string;
	
	    static createFrom(source: any = {}) {
	        return new SendRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.text = source["text"];
	        this.workspace = source["workspace"];
	        this.model = source["model"];
	        this.approve = source["approve"];
	        this.images = this.convertValues(source["images"], ImageUpload);
	        this.replace = source["replace"];
	        this.undo_replaced = source["undo_replaced"];
	        this.token = source["token"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SendResult {
	    session_id: string;
	
	    static createFrom(source: any = {}) {
	        return new SendResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	    }
	}
	export class ServerInput {
	    name: string;
	    command: string;
	    args: string[];
	    url: string;
	    env: {[key: string]: string};
	    headers: {[key: string]: string};
	    sse: boolean;
	    read_only: boolean;
	    local: boolean;
	    roots: boolean;
	    disabled: boolean;
	    timeout: number;
	    oauth_client_id: string;
	    oauth_client_secret: string;
	    oauth_callback_port: number;
	
	    static createFrom(source: any = {}) {
	        return new ServerInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.url = source["url"];
	        this.env = source["env"];
	        this.headers = source["headers"];
	        this.sse = source["sse"];
	        this.read_only = source["read_only"];
	        this.local = source["local"];
	        this.roots = source["roots"];
	        this.disabled = source["disabled"];
	        this.timeout = source["timeout"];
	        this.oauth_client_id = source["oauth_client_id"];
	        this.oauth_client_secret = source["oauth_client_secret"];
	        this.oauth_callback_port = source["oauth_callback_port"];
	    }
	}
	export class ServerView {
	    name: string;
	    command: string;
	    args: string[];
	    url: string;
	    env: {[key: string]: string};
	    headers: {[key: string]: string};
	    sse: boolean;
	    read_only: boolean;
	    local: boolean;
	    roots: boolean;
	    disabled: boolean;
	    timeout: number;
	    oauth_client_id: string;
	    oauth_client_secret: string;
	    oauth_callback_port: number;
	    variables: string[];
	    status: mcp.Status;
	
	    static createFrom(source: any = {}) {
	        return new ServerView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.url = source["url"];
	        this.env = source["env"];
	        this.headers = source["headers"];
	        this.sse = source["sse"];
	        this.read_only = source["read_only"];
	        this.local = source["local"];
	        this.roots = source["roots"];
	        this.disabled = source["disabled"];
	        this.timeout = source["timeout"];
	        this.oauth_client_id = source["oauth_client_id"];
	        this.oauth_client_secret = source["oauth_client_secret"];
	        this.oauth_callback_port = source["oauth_callback_port"];
	        this.variables = source["variables"];
	        this.status = this.convertValues(source["status"], mcp.Status);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class StoredEvent {
	    seq: number;
	    first_seq?: number;
	    session: string;
	    type: string;
	    // Go type: time
	    time: any;
	    data: string;
	
	    static createFrom(source: any = {}) {
	        return new StoredEvent(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.first_seq = source["first_seq"];
	        this.session = source["session"];
	        this.type = source["type"];
	        this.time = this.convertValues(source["time"], null);
	        this.data = source["data"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SessionExport {
	    session: store.Session;
	    events: StoredEvent[];
	
	    static createFrom(source: any = {}) {
	        return new SessionExport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = this.convertValues(source["session"], store.Session);
	        this.events = this.convertValues(source["events"], StoredEvent);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SessionList {
	    sessions: store.Session[];
	    total: number;
	
	    static createFrom(source: any = {}) {
	        return new SessionList(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessions = this.convertValues(source["sessions"], store.Session);
	        this.total = source["total"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Taught {
	    id: string;
	    chain: string;
	
	    static createFrom(source: any = {}) {
	        return new Taught(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.chain = source["chain"];
	    }
	}
	export class TurnsView {
	    turns: number;
	    default: number;
	    most: number;
	    from_env: boolean;
	
	    static createFrom(source: any = {}) {
	        return new TurnsView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.turns = source["turns"];
	        this.default = source["default"];
	        this.most = source["most"];
	        this.from_env = source["from_env"];
	    }
	}
	export class UndoFile {
	    workspace: string;
	    path: string;
	    action: string;
	    why: string;
	    shared: boolean;
	    would: string;
	
	    static createFrom(source: any = {}) {
	        return new UndoFile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workspace = source["workspace"];
	        this.path = source["path"];
	        this.action = source["action"];
	        this.why = source["why"];
	        this.shared = source["shared"];
	        this.would = source["would"];
	    }
	}
	export class UndoRef {
	    workspace: string;
	    path: string;
	    anyway: boolean;
	
	    static createFrom(source: any = {}) {
	        return new UndoRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workspace = source["workspace"];
	        this.path = source["path"];
	        this.anyway = source["anyway"];
	    }
	}
	export class UndoView {
	    run: number;
	    files: UndoFile[];
	    untracked: string[];
	    elsewhere: string[];
	    changes: boolean;
	    taught: Taught[];
	    redo: boolean;
	
	    static createFrom(source: any = {}) {
	        return new UndoView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run = source["run"];
	        this.files = this.convertValues(source["files"], UndoFile);
	        this.untracked = source["untracked"];
	        this.elsewhere = source["elsewhere"];
	        this.changes = source["changes"];
	        this.taught = this.convertValues(source["taught"], Taught);
	        this.redo = source["redo"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class UsageChart {
	    time: number[];
	    in: number[];
	    out: number[];
	
	    static createFrom(source: any = {}) {
	        return new UsageChart(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.time = source["time"];
	        this.in = source["in"];
	        this.out = source["out"];
	    }
	}
	export class UsageSummary {
	    chart: UsageChart;
	    recent: store.Session[];
	    models: store.ModelUsage[];
	
	    static createFrom(source: any = {}) {
	        return new UsageSummary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.chart = this.convertValues(source["chart"], UsageChart);
	        this.recent = this.convertValues(source["recent"], store.Session);
	        this.models = this.convertValues(source["models"], store.ModelUsage);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace doctor {
	
	export class Result {
	    check: string;
	    status: string;
	    detail: string;
	    fix: string;
	
	    static createFrom(source: any = {}) {
	        return new Result(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.check = source["check"];
	        this.status = source["status"];
	        this.detail = source["detail"];
	        this.fix = source["fix"];
	    }
	}

}

export namespace hooks {
	
	export class Hook {
	    id: string;
	    event: string;
	    tool?: string;
	    command: string;
	    args?: string[];
	    timeout?: number;
	    disabled?: boolean;
	    claude?: string;
	    env?: {[key: string]: string};
	    prompt?: string;
	    codex?: boolean;
	    gemini?: boolean;
	    cursor?: boolean;
	    failClosed?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Hook(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.event = source["event"];
	        this.tool = source["tool"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.timeout = source["timeout"];
	        this.disabled = source["disabled"];
	        this.claude = source["claude"];
	        this.env = source["env"];
	        this.prompt = source["prompt"];
	        this.codex = source["codex"];
	        this.gemini = source["gemini"];
	        this.cursor = source["cursor"];
	        this.failClosed = source["failClosed"];
	    }
	}
	export class Skipped {
	    event: string;
	    matcher?: string;
	    command?: string;
	    why: string;
	
	    static createFrom(source: any = {}) {
	        return new Skipped(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.event = source["event"];
	        this.matcher = source["matcher"];
	        this.command = source["command"];
	        this.why = source["why"];
	    }
	}

}

export namespace instructions {
	
	export class File {
	    path: string;
	    bytes: number;
	    scope: string;
	    agent?: string;
	    used: number;
	    imports?: string[];
	
	    static createFrom(source: any = {}) {
	        return new File(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.bytes = source["bytes"];
	        this.scope = source["scope"];
	        this.agent = source["agent"];
	        this.used = source["used"];
	        this.imports = source["imports"];
	    }
	}

}

export namespace mcp {
	
	export class Hints {
	    read_only?: boolean;
	    destructive?: boolean;
	    open_world?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Hints(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.read_only = source["read_only"];
	        this.destructive = source["destructive"];
	        this.open_world = source["open_world"];
	    }
	}
	export class PromptArgument {
	    name: string;
	    title?: string;
	    description?: string;
	    required?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new PromptArgument(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.required = source["required"];
	    }
	}
	export class Prompt {
	    name: string;
	    title?: string;
	    description?: string;
	    arguments: PromptArgument[];
	
	    static createFrom(source: any = {}) {
	        return new Prompt(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.arguments = this.convertValues(source["arguments"], PromptArgument);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Tool {
	    name: string;
	    description: string;
	    input_schema: number[];
	    hints: Hints;
	    kind?: string;
	    needs_tasks?: boolean;
	    excluded?: boolean;
	    offered?: string;
	
	    static createFrom(source: any = {}) {
	        return new Tool(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.input_schema = source["input_schema"];
	        this.hints = this.convertValues(source["hints"], Hints);
	        this.kind = source["kind"];
	        this.needs_tasks = source["needs_tasks"];
	        this.excluded = source["excluded"];
	        this.offered = source["offered"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Status {
	    name: string;
	    state: string;
	    transport: string;
	    read_only: boolean;
	    local: boolean;
	    signed_in?: boolean;
	    tools: Tool[];
	    prompts: Prompt[];
	    last_error?: string;
	    stderr: string[];
	    not_mcp: number;
	    restarts: number;
	    failures: number;
	    // Go type: time
	    since: any;
	    folder?: string;
	    // Go type: time
	    retry: any;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.state = source["state"];
	        this.transport = source["transport"];
	        this.read_only = source["read_only"];
	        this.local = source["local"];
	        this.signed_in = source["signed_in"];
	        this.tools = this.convertValues(source["tools"], Tool);
	        this.prompts = this.convertValues(source["prompts"], Prompt);
	        this.last_error = source["last_error"];
	        this.stderr = source["stderr"];
	        this.not_mcp = source["not_mcp"];
	        this.restarts = source["restarts"];
	        this.failures = source["failures"];
	        this.since = this.convertValues(source["since"], null);
	        this.folder = source["folder"];
	        this.retry = this.convertValues(source["retry"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace metrics {
	
	export class Group {
	    runs: number;
	    median_turns: number;
	    median_tool_calls: number;
	    median_malformed_calls: number;
	    median_wall_ms: number;
	    answered_share: number;
	
	    static createFrom(source: any = {}) {
	        return new Group(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.runs = source["runs"];
	        this.median_turns = source["median_turns"];
	        this.median_tool_calls = source["median_tool_calls"];
	        this.median_malformed_calls = source["median_malformed_calls"];
	        this.median_wall_ms = source["median_wall_ms"];
	        this.answered_share = source["answered_share"];
	    }
	}
	export class Comparison {
	    with_recall: Group;
	    without_recall: Group;
	    saved_turns: {[key: string]: number};
	
	    static createFrom(source: any = {}) {
	        return new Comparison(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.with_recall = this.convertValues(source["with_recall"], Group);
	        this.without_recall = this.convertValues(source["without_recall"], Group);
	        this.saved_turns = source["saved_turns"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Recall {
	    id: string;
	    score: number;
	
	    static createFrom(source: any = {}) {
	        return new Recall(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.score = source["score"];
	    }
	}
	export class Run {
	    session: string;
	    run_seq: number;
	    request: string;
	    model: string;
	    // Go type: time
	    started: any;
	    turns: number;
	    tool_calls: number;
	    malformed_calls: number;
	    denied_calls: number;
	    repeated_calls: number;
	    refetched_calls: number;
	    tokens_in: number;
	    tokens_out: number;
	    wall_ms: number;
	    first_tool_ms: number;
	    recalled: string[];
	    recall_scores: Recall[];
	    followed?: string;
	    chain: string[];
	    status: string;
	
	    static createFrom(source: any = {}) {
	        return new Run(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = source["session"];
	        this.run_seq = source["run_seq"];
	        this.request = source["request"];
	        this.model = source["model"];
	        this.started = this.convertValues(source["started"], null);
	        this.turns = source["turns"];
	        this.tool_calls = source["tool_calls"];
	        this.malformed_calls = source["malformed_calls"];
	        this.denied_calls = source["denied_calls"];
	        this.repeated_calls = source["repeated_calls"];
	        this.refetched_calls = source["refetched_calls"];
	        this.tokens_in = source["tokens_in"];
	        this.tokens_out = source["tokens_out"];
	        this.wall_ms = source["wall_ms"];
	        this.first_tool_ms = source["first_tool_ms"];
	        this.recalled = source["recalled"];
	        this.recall_scores = this.convertValues(source["recall_scores"], Recall);
	        this.followed = source["followed"];
	        this.chain = source["chain"];
	        this.status = source["status"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace model {
	
	export class InMemory {
	    name: string;
	    size: number;
	    size_vram: number;
	    context_length: number;
	    // Go type: time
	    until: any;
	    forever: boolean;
	
	    static createFrom(source: any = {}) {
	        return new InMemory(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.size = source["size"];
	        this.size_vram = source["size_vram"];
	        this.context_length = source["context_length"];
	        this.until = this.convertValues(source["until"], null);
	        this.forever = source["forever"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Info {
	    name: string;
	    size: number;
	    family: string;
	    parameter_size: string;
	    quantization: string;
	    context_length: number;
	    // Go type: time
	    modified: any;
	    digest: string;
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.size = source["size"];
	        this.family = source["family"];
	        this.parameter_size = source["parameter_size"];
	        this.quantization = source["quantization"];
	        this.context_length = source["context_length"];
	        this.modified = this.convertValues(source["modified"], null);
	        this.digest = source["digest"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ParamSpec {
	    name: string;
	    int: boolean;
	    min: number;
	    max: number;
	    about: string;
	
	    static createFrom(source: any = {}) {
	        return new ParamSpec(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.int = source["int"];
	        this.min = source["min"];
	        this.max = source["max"];
	        this.about = source["about"];
	    }
	}
	export class Status {
	    host: string;
	    reachable: boolean;
	    version: string;
	    models: string[];
	    error: string;
	    foreign: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.host = source["host"];
	        this.reachable = source["reachable"];
	        this.version = source["version"];
	        this.models = source["models"];
	        this.error = source["error"];
	        this.foreign = source["foreign"];
	    }
	}

}

export namespace procedures {
	
	export class Procedure {
	    id: string;
	    trigger: string;
	    triggers: string[];
	    tools: string[];
	    examples: number[][];
	    sessions: string[];
	    uses: number;
	    demerits: number;
	    forgotten: boolean;
	    // Go type: time
	    created: any;
	    // Go type: time
	    last_used: any;
	
	    static createFrom(source: any = {}) {
	        return new Procedure(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.trigger = source["trigger"];
	        this.triggers = source["triggers"];
	        this.tools = source["tools"];
	        this.examples = source["examples"];
	        this.sessions = source["sessions"];
	        this.uses = source["uses"];
	        this.demerits = source["demerits"];
	        this.forgotten = source["forgotten"];
	        this.created = this.convertValues(source["created"], null);
	        this.last_used = this.convertValues(source["last_used"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace share {
	
	export class Refused {
	    trigger: string;
	    why: string;
	
	    static createFrom(source: any = {}) {
	        return new Refused(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.trigger = source["trigger"];
	        this.why = source["why"];
	    }
	}
	export class Imported {
	    added: procedures.Procedure[];
	    duplicates: number;
	    refused: Refused[];
	
	    static createFrom(source: any = {}) {
	        return new Imported(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.added = this.convertValues(source["added"], procedures.Procedure);
	        this.duplicates = source["duplicates"];
	        this.refused = this.convertValues(source["refused"], Refused);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace skills {
	
	export class Skill {
	    name: string;
	    description: string;
	    dir: string;
	    scope: string;
	
	    static createFrom(source: any = {}) {
	        return new Skill(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.dir = source["dir"];
	        this.scope = source["scope"];
	    }
	}
	export class Found {
	    skills: Skill[];
	    warnings: string[];
	
	    static createFrom(source: any = {}) {
	        return new Found(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.skills = this.convertValues(source["skills"], Skill);
	        this.warnings = source["warnings"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace store {
	
	export class Fact {
	    key: string;
	    value: string;
	    source: string;
	    // Go type: time
	    updated: any;
	    flagged: boolean;
	    approved: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Fact(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
	        this.value = source["value"];
	        this.source = source["source"];
	        this.updated = this.convertValues(source["updated"], null);
	        this.flagged = source["flagged"];
	        this.approved = source["approved"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ModelUsage {
	    model: string;
	    sessions: number;
	    prompt_tokens: number;
	    completion_tokens: number;
	    eval_ms: number;
	
	    static createFrom(source: any = {}) {
	        return new ModelUsage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.sessions = source["sessions"];
	        this.prompt_tokens = source["prompt_tokens"];
	        this.completion_tokens = source["completion_tokens"];
	        this.eval_ms = source["eval_ms"];
	    }
	}
	export class Session {
	    id: string;
	    title: string;
	    model: string;
	    workspace: string;
	    // Go type: time
	    created: any;
	    // Go type: time
	    updated: any;
	    prompt_tokens: number;
	    completion_tokens: number;
	    eval_ms: number;
	    outside?: string;
	
	    static createFrom(source: any = {}) {
	        return new Session(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.model = source["model"];
	        this.workspace = source["workspace"];
	        this.created = this.convertValues(source["created"], null);
	        this.updated = this.convertValues(source["updated"], null);
	        this.prompt_tokens = source["prompt_tokens"];
	        this.completion_tokens = source["completion_tokens"];
	        this.eval_ms = source["eval_ms"];
	        this.outside = source["outside"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class WorkingEntry {
	    key: string;
	    value: string;
	    // Go type: time
	    updated: any;
	
	    static createFrom(source: any = {}) {
	        return new WorkingEntry(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
	        this.value = source["value"];
	        this.updated = this.convertValues(source["updated"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace tool {
	
	export class Field {
	    name: string;
	    title?: string;
	    description?: string;
	    type: string;
	    required?: boolean;
	    choices?: string[];
	    choice_names?: string[];
	    default?: any;
	    format?: string;
	    min?: number;
	    max?: number;
	    min_length?: number;
	    max_length?: number;
	    min_items?: number;
	    max_items?: number;
	
	    static createFrom(source: any = {}) {
	        return new Field(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.type = source["type"];
	        this.required = source["required"];
	        this.choices = source["choices"];
	        this.choice_names = source["choice_names"];
	        this.default = source["default"];
	        this.format = source["format"];
	        this.min = source["min"];
	        this.max = source["max"];
	        this.min_length = source["min_length"];
	        this.max_length = source["max_length"];
	        this.min_items = source["min_items"];
	        this.max_items = source["max_items"];
	    }
	}

}

