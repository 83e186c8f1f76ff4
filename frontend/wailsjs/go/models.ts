export namespace desktop {
	
	export class Info {
	    version: string;
	    data_dir: string;
	    ollama_host: string;
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.data_dir = source["data_dir"];
	        this.ollama_host = source["ollama_host"];
	    }
	}

}

export namespace model {
	
	export class Status {
	    host: string;
	    reachable: boolean;
	    version: string;
	    models: string[];
	    error: string;
	
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
	    }
	}

}

